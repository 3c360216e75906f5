/// The GPU qmv kernel (HIP and CUDA from one source). A CTA of Policy::warps logical warps; each
/// warp owns one weight row at a time, copies a window of that row's blocks into shared memory
/// with the widest aligned loads it can (16 B), then every lane runs the same accumulate_window
/// body as the CPU executor and the warp combines with the Order's xor butterfly. The window size
/// is a Policy choice that cannot change bits: a window is a whole number of 32-block groups and
/// each lane still visits its own blocks in ascending order.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/device_api.hpp"
#include "ordo/ops/qmv/int8_dot_streaming.hpp"
#include "ordo/ops/qmv/qmv.hpp"

namespace ordo::ops::qmv {

/// Dot blocks per shared-memory window: as many 32-block groups as fit Policy::window_bytes (>= 1).
template <quant::quant_format F, class Policy>
inline constexpr int window_blocks = [] {
  const int groups = int(Policy::window_bytes / (32 * dot_bytes<F>));
  return 32 * (groups > 0 ? groups : 1);
}();

template <quant::quant_format F, class Policy>
inline constexpr std::size_t window_stage_bytes = std::size_t(window_blocks<F, Policy>) * dot_bytes<F>;

#if defined(ORDO_GPU)
extern __shared__ uint4 ordo_qmv_stage[];

/// Warp-cooperative copy of `bytes` from global to shared memory: 16-byte loads when both ends are
/// 16-byte aligned, else 4-byte, else bytes. The branch is uniform across the warp.
ORDO_DEVICE ORDO_FORCEINLINE void copy_window(std::byte* dst, const std::byte* __restrict__ src, std::size_t bytes,
                                              int lane) {
  const auto addr = reinterpret_cast<std::uintptr_t>(src);
  if ((addr & 15) == 0 && (bytes & 15) == 0) {
    auto* d = reinterpret_cast<uint4*>(dst);
    const auto* s = reinterpret_cast<const uint4*>(src);
    for (std::size_t i = lane; i < bytes / 16; i += 32) d[i] = s[i];
  } else if ((addr & 3) == 0 && (bytes & 3) == 0) {
    auto* d = reinterpret_cast<std::uint32_t*>(dst);
    const auto* s = reinterpret_cast<const std::uint32_t*>(src);
    for (std::size_t i = lane; i < bytes / 4; i += 32) d[i] = s[i];
  } else {
    for (std::size_t i = lane; i < bytes; i += 32) dst[i] = src[i];
  }
}

template <quant::quant_format F, class Order, int R, class Policy>
ORDO_GLOBAL void __launch_bounds__(Policy::warps * 32) qmv_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  constexpr int warps = Policy::warps;
  constexpr int wb = window_blocks<F, Policy>;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  std::byte* stage = reinterpret_cast<std::byte*>(ordo_qmv_stage) + warp * window_stage_bytes<F, Policy>;
  const int nb = p.k / F::dot_elems;
  // The loops are uniform across the CTA (a warp past the last row idles) so __syncthreads is safe.
  for (int base = int(blockIdx.x) * warps; base < p.n_out; base += int(gridDim.x) * warps) {
    const int row = base + warp;
    const bool live = row < p.n_out;
    const std::byte* wrow = p.weights + std::size_t(live ? row : 0) * p.weight_row_bytes;
    float acc[R];
#pragma unroll
    for (int i = 0; i < R; ++i) acc[i] = 0.0f;
    for (int w0 = 0; w0 < nb; w0 += wb) {
      const int w1 = w0 + wb < nb ? w0 + wb : nb;
      if (live) copy_window(stage, wrow + std::size_t(w0) * dot_bytes<F>, std::size_t(w1 - w0) * dot_bytes<F>, lane);
      __syncthreads();
      if (live) accumulate_window<F, Order, R>(stage, w0, w1, nb, lane, p, acc);
      __syncthreads();
    }
    if (live) {
#pragma unroll
      for (int i = 0; i < R; ++i) {
        if (i < p.rows) {
          float v = acc[i];
#pragma unroll
          for (int step = 0; step < Order::combine_steps; ++step) v = v + gpu::shfl_xor(v, Order::combine_offset(step));
          if (lane == 0) p.out[std::size_t(i) * p.out_stride + row] = v;
        }
      }
    }
  }
#else
  (void)p;
#endif
}

template <quant::quant_format F, class Order, int R, class Policy>
void launch_gpu(const problem& p, gpu::stream_t stream) {
#if defined(ORDO_GPU_CUDA)
  // Specialized kernels first: same bits, faster arrangement; each says false where it does not apply.
  if constexpr (std::is_same_v<Order, order::lane_strided>) {
    if constexpr (std::is_same_v<F, quant::q8_0>) {
      if (int8_dot_streaming::try_launch<q8_0_decoder, R, Policy>(p, stream)) return;
    } else if constexpr (std::is_same_v<F, quant::mxfp4>) {
      if (int8_dot_streaming::try_launch<mxfp4_decoder, R, Policy>(p, stream)) return;
    }
  }
#endif
  constexpr int warps = Policy::warps;
  const unsigned grid = unsigned((p.n_out + warps - 1) / warps);
  const std::size_t smem = std::size_t(warps) * window_stage_bytes<F, Policy>;
  static_assert(warps * window_stage_bytes<F, Policy> <= 48 * 1024, "qmv window exceeds 48 KiB of shared memory");
  qmv_kernel<F, Order, R, Policy><<<grid, warps * 32, smem, gpu::native(stream)>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
}
#endif

}  // namespace ordo::ops::qmv
