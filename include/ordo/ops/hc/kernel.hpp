/// The hc GPU kernels (HIP and CUDA from one source).
/// pre / head: one CTA of `warps_per_cta` logical warps per pass (all live rows). Warp 0 reduces
/// Σx² of every row; warp w then reduces mixes w, w + warps_per_cta, … of every row (one pass
/// over fn[k] for all rows), each with the Order's lane split and xor butterfly; thread i < rows
/// turns row i's mixes into its split; all threads write the collapse. post: element-parallel
/// over n_embd, rows rolled. Nothing about a split or a combine depends on R, the grid or the
/// device.
#pragma once
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/ops/hc/body.hpp"
#include "ordo/ops/hc/hc.hpp"

namespace ordo::ops::hc {

/// Whether spec (R, S) can run p (the launcher checks it; a mismatch is the caller's bug).
template <int R, stage S>
constexpr bool can_run(const problem& p) {
  return valid<R, S>(p);
}

#if defined(ORDO_GPU)
inline constexpr int warps_per_cta = 8;
inline constexpr int threads_per_cta = warps_per_cta * 32;

#if defined(ORDO_DEVICE_PASS)
/// The Order's butterfly on one warp (every lane ends with the sum).
template <class Order>
ORDO_DEVICE ORDO_FORCEINLINE float combine_warp(float v) {
#pragma unroll
  for (int step = 0; step < Order::combine_steps; ++step) v = v + gpu::shfl_xor(v, Order::combine_offset(step));
  return v;
}

/// acc[i] for i = row without dynamic register indexing.
template <int R>
ORDO_DEVICE ORDO_FORCEINLINE float select_row(const float (&acc)[R], int row) {
  float v = acc[0];
#pragma unroll
  for (int j = 1; j < R; ++j) v = row == j ? acc[j] : v;
  return v;
}
#endif

template <int R, class Order, stage S>
ORDO_GLOBAL void __launch_bounds__(threads_per_cta) hc_collapse_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  constexpr int mixes = mixes_of(S);
  __shared__ float inv[R];
  __shared__ float mix[R][mixes];
  __shared__ float weights[R][n_pre_mix];
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  if (warp == 0) {
    float acc[R];
#pragma unroll
    for (int i = 0; i < R; ++i) acc[i] = 0.0f;
    rmsnorm::accumulate_squares<Order, R>(flat_view(p), 0, lane, acc);
#pragma unroll 1
    for (int i = 0; i < p.rows; ++i) {
      const float v = combine_warp<Order>(select_row<R>(acc, i));
      if (lane == 0) inv[i] = rmsnorm::inverse_rms(v, flat_width(p), p.rms_eps);
    }
  }
  __syncthreads();
  float inv_rows[R];
#pragma unroll
  for (int i = 0; i < R; ++i) inv_rows[i] = i < p.rows ? inv[i] : 0.0f;
#pragma unroll 1
  for (int k = warp; k < mixes; k += warps_per_cta) {
    float acc[R];
#pragma unroll
    for (int i = 0; i < R; ++i) acc[i] = 0.0f;
    accumulate_mix<Order, R>(p, k, lane, inv_rows, acc);
#pragma unroll 1
    for (int i = 0; i < p.rows; ++i) {
      const float v = combine_warp<Order>(select_row<R>(acc, i));
      if (lane == 0) mix[i][k] = v;
    }
  }
  __syncthreads();
  const int t = int(threadIdx.x);
  if (t < p.rows) {
    if constexpr (S == stage::pre) {
      split_from_mix(mix[t], p.scale, p.base, p.hc_eps, weights[t]);
      float* split = p.split + std::size_t(t) * p.split_stride;
      for (int c = 0; c < n_pre_mix; ++c) split[c] = weights[t][c];
    } else {
      head_weights(mix[t], p.scale, p.base, p.hc_eps, weights[t]);
    }
  }
  __syncthreads();
#pragma unroll 1
  for (int i = 0; i < p.rows; ++i) write_collapse(p, i, weights[i], t, threads_per_cta);
#else
  (void)p;
#endif
}

template <int R>
ORDO_GLOBAL void __launch_bounds__(threads_per_cta) hc_post_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int j = int(blockIdx.x) * threads_per_cta + int(threadIdx.x);
  const int step = int(gridDim.x) * threads_per_cta;
#pragma unroll 1
  for (int i = 0; i < p.rows; ++i) write_post(p, i, j, step);
#else
  (void)p;
#endif
}

template <int R, class Order, stage S>
void launch_gpu(const problem& p, gpu::stream_t stream) {
  if constexpr (S == stage::post) {
    const unsigned grid = unsigned((p.n_embd + threads_per_cta - 1) / threads_per_cta);
    hc_post_kernel<R><<<grid, threads_per_cta, 0, gpu::native(stream)>>>(p);
  } else {
    hc_collapse_kernel<R, Order, S><<<1, threads_per_cta, 0, gpu::native(stream)>>>(p);
  }
  ORDO_GPU_CHECK_LAUNCH();
}

using launcher = void (*)(const problem&, gpu::stream_t);

/// The launcher of every spec in op::for_each_spec's order (entry i is cpu_entries()[i]'s spec).
/// Provisional, like entries.hpp: kernels/hc.cpp takes these addresses so the kernels become
/// object code; the generic registry of DESIGN §3a replaces both.
inline std::vector<launcher> gpu_launchers() {
  std::vector<launcher> v;
  op::for_each_spec([&]<int R, class Order, stage S>() { v.push_back(&launch_gpu<R, Order, S>); });
  return v;
}

/// gpu_launchers() built once, defined in kernels/hc.cpp (GPU builds only).
const std::vector<launcher>& gpu_launcher_table();
#endif

}  // namespace ordo::ops::hc
