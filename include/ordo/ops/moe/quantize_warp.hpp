/// q8_k::quantize of one 256-element block by the 32 lanes of a warp, the same bytes (GPU only).
///
/// Why: gate_up's pass 1 quantizes each pair's mid chunk into the routed down activation; for the
/// q2 and q4_k layouts that is one q8_k block per chunk, and one lane walking its 256 elements three
/// times (the scan, the codes, the block sums) was the pass's whole time. Each step is exact under
/// any split: the element of the largest |x| is the first one of the largest magnitude (each lane
/// scans its elements lane + 32t ascending with quantize's strict rule, then the lanes keep the
/// larger magnitude, the lower index on ties — a total order, so the butterfly gives every lane the
/// serial scan's element; NaNs are never taken, as in the scan), each code is its element's own
/// `code_even(iscale · x)`, and a block sum is an integer sum. iscale and d are quantize's
/// expressions.
#pragma once
#include <cstdint>

#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/portability.hpp"
#include "ordo/quant/q8_k.hpp"
#include "ordo/quant/rounding.hpp"

namespace ordo::ops::moe {

#if defined(ORDO_DEVICE_PASS)
/// Orders the lanes' shared-memory writes before the other lanes read them.
ORDO_DEVICE ORDO_FORCEINLINE void warp_barrier() {
#if defined(ORDO_GPU_CUDA)
  __syncwarp();
#else
  __threadfence_block();  // a wavefront runs in lockstep; the fence orders its memory
#endif
}

/// x: the block's 256 floats, out: its block (both in shared memory); every lane calls it.
ORDO_DEVICE inline void quantize_q8_k_warp(const float* x, quant::q8_k::block& out, int lane) {
  constexpr int n = quant::q8_k::block_elems;
  float amax = 0.0f, max = 0.0f;
  int at = -1;  // the index of max; −1: this lane has no element of nonzero magnitude
#pragma unroll
  for (int t = 0; t < n / 32; ++t) {
    const int i = lane + 32 * t;
    const float a = x[i] < 0.0f ? -x[i] : x[i];
    if (a > amax) {
      amax = a;
      max = x[i];
      at = i;
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float other_amax = gpu::shfl_xor(amax, o), other_max = gpu::shfl_xor(max, o);
    const int other_at = gpu::shfl_xor_i32(at, o);
    if (other_amax > amax || (other_amax == amax && other_at < at)) {
      amax = other_amax;
      max = other_max;
      at = other_at;
    }
  }
  if (amax == 0.0f) {  // uniform: every lane holds the block's amax
    for (int i = lane; i < n; i += 32) out.qs[i] = 0;
    if (lane < 16) out.bsums[lane] = 0;
    if (lane == 0) out.d = 0.0f;
    return;
  }
  const float iscale = -127.0f / max;
#pragma unroll
  for (int t = 0; t < n / 32; ++t) {
    const int i = lane + 32 * t;
    int q = quant::code_even(iscale * x[i]);
    q = q > 127 ? 127 : (q < -128 ? -128 : q);
    out.qs[i] = static_cast<std::int8_t>(q);
  }
  warp_barrier();  // every code is in place before the block sums read them
  if (lane < 16) {
    int sum = 0;
#pragma unroll
    for (int i = 0; i < 16; ++i) sum += out.qs[16 * lane + i];
    out.bsums[lane] = static_cast<std::int16_t>(sum);
  }
  if (lane == 0) out.d = 1.0f / iscale;
}

#endif

}  // namespace ordo::ops::moe
