/// The hc GPU kernels (HIP and CUDA from one source). split: one thread per row. weighted_sum,
/// collapse, post: element-parallel over n_embd (a grid of threads_per_cta-thread CTAs), rows
/// rolled; collapse's 4 weights are recomputed by every thread from the row's mixes (the same
/// arithmetic, so the same bits). Every value is computed alone by the body, so nothing depends on
/// R, the grid or the device.
#pragma once
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/ops/hc/body.hpp"
#include "ordo/ops/hc/hc.hpp"

namespace ordo::ops::hc {

/// Whether spec (R, S) can run p (the launcher checks it; a mismatch is the caller's bug).
template <int R, stage S>
constexpr bool can_run(const problem& p) {
  return valid<R, S>(p);
}

#if defined(ORDO_GPU)
inline constexpr int threads_per_cta = 256;

template <int R, stage S>
ORDO_GLOBAL void __launch_bounds__(threads_per_cta) hc_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int t = int(blockIdx.x) * threads_per_cta + int(threadIdx.x);
  if constexpr (S == stage::split) {
    if (t < p.rows) write_split(p, t);
  } else {
    const int step = int(gridDim.x) * threads_per_cta;
#pragma unroll 1
    for (int i = 0; i < p.rows; ++i) {
      if constexpr (S == stage::weighted_sum) {
        write_collapse(p, i, split_of(p, i), t, step);
      } else if constexpr (S == stage::post) {
        write_post(p, i, t, step);
      } else {
        float w[n_streams];
        head_weights(mix_of(p, i), p.scale, p.base, p.hc_eps, w);
        write_collapse(p, i, w, t, step);
      }
    }
  }
#else
  (void)p;
#endif
}

template <int R, stage S>
void launch_gpu(const problem& p, gpu::stream_t stream) {
  const int threads = S == stage::split ? p.rows : p.n_embd;
  const unsigned grid = unsigned((threads + threads_per_cta - 1) / threads_per_cta);
  hc_kernel<R, S><<<grid, threads_per_cta, 0, gpu::native(stream)>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
}

using launcher = void (*)(const problem&, gpu::stream_t);

/// The launcher of every spec in op::for_each_spec's order (entry i is cpu_entries()[i]'s spec).
/// Provisional, like entries.hpp: kernels/hc.cpp takes these addresses so the kernels become
/// object code; the generic registry of DESIGN §3a replaces both.
inline std::vector<launcher> gpu_launchers() {
  std::vector<launcher> v;
  op::for_each_spec([&]<int R, stage S>() { v.push_back(&launch_gpu<R, S>); });
  return v;
}

/// gpu_launchers() built once, defined in kernels/hc.cpp (GPU builds only).
const std::vector<launcher>& gpu_launcher_table();
#endif

}  // namespace ordo::ops::hc
