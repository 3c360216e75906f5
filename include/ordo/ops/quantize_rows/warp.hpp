/// quantize_rows on the GPU with a warp per block, for the formats whose quantize has a warp form
/// that writes the same bytes (device only). One thread per block spent the kernel's time in its
/// own serial walk: 32 (or 256) loads that touch a cache line each, a 32-long max chain, then the
/// codes one by one; a warp loads a block's elements side by side and each lane codes its own.
///  q8_32: amax is quantize's scan from 0 with its strict rule `a > amax` (a NaN is never taken):
///  the largest non-NaN |x| or 0 — a maximum, which a butterfly of the same rule over the lanes
///  gives every lane (the lanes' values are never NaN, and equal magnitudes have equal bits);
///  id, each code and d are quantize's own expressions of the same values.
///  q8_k: moe's quantize_q8_k_warp (ops/moe/quantize_warp.hpp says why it is exact).
#pragma once
#include <cstdint>
#include <type_traits>

#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/portability.hpp"
#include "ordo/ops/moe/quantize_warp.hpp"
#include "ordo/quant/q8_32.hpp"
#include "ordo/quant/q8_k.hpp"
#include "ordo/quant/rounding.hpp"

namespace ordo::ops::quantize_rows {

/// Whether activation format A has a warp form here.
template <class A>
inline constexpr bool has_warp_form = std::is_same_v<A, quant::q8_32> || std::is_same_v<A, quant::q8_k>;

#if defined(ORDO_DEVICE_PASS)
/// N consecutive blocks (x: their N · 32 floats, out: their N blocks) at once; every lane of the
/// warp calls it. Each block is quantize's own: the blocks' loads, butterflies and codes side by
/// side, so a warp quantizing a chunk of N blocks waits on one load latency and one butterfly, not
/// N in a row (the q2 layout's shared-expert slot, 8 blocks a chunk: moe's quantize pass at 2 rows
/// took 8.48 µs with them one after another, 6.05 µs side by side; ncu, H100, session 26. The
/// step it sits in measured the same either way, 96.5 µs: bench/moe, same call).
template <int N>
ORDO_DEVICE ORDO_FORCEINLINE void quantize_q8_32_blocks_warp(const float* x, quant::q8_32::block* out, int lane) {
  float v[N], amax[N];
#pragma unroll
  for (int b = 0; b < N; ++b) {
    v[b] = x[32 * b + lane];
    const float a = v[b] < 0.0f ? -v[b] : v[b];
    amax[b] = a > 0.0f ? a : 0.0f;
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
#pragma unroll
    for (int b = 0; b < N; ++b) {
      const float other = gpu::shfl_xor(amax[b], o);
      amax[b] = other > amax[b] ? other : amax[b];
    }
  }
#pragma unroll
  for (int b = 0; b < N; ++b) {
    const float id = amax[b] != 0.0f ? 127.0f / amax[b] : 0.0f;
    int q = quant::code_even(v[b] * id);
    q = q > 127 ? 127 : (q < -127 ? -127 : q);
    out[b].qs[lane] = static_cast<std::int8_t>(q);
    if (lane == 0) out[b].d = amax[b] / 127.0f;
  }
}
/// x: the block's floats, out: its block; every lane of the warp calls it.
ORDO_DEVICE inline void quantize_q8_32_warp(const float* x, quant::q8_32::block& out, int lane) {
  quantize_q8_32_blocks_warp<1>(x, &out, lane);
}

template <class A>
ORDO_DEVICE ORDO_FORCEINLINE void quantize_block_warp(const float* x, typename A::block& out, int lane) {
  if constexpr (std::is_same_v<A, quant::q8_32>)
    quantize_q8_32_warp(x, out, lane);
  else
    moe::quantize_q8_k_warp(x, out, lane);
}
#endif

}  // namespace ordo::ops::quantize_rows
