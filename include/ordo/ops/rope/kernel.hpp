/// The rope GPU kernel: one thread per (head, pair), looping over the live rows of the pass (the
/// tier: R rows reuse the thread's indexing; nothing about one row's arithmetic depends on R).
#pragma once
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/ops/rope/body.hpp"
#include "ordo/ops/rope/rope.hpp"

namespace ordo::ops::rope {

template <int R>
constexpr bool can_run(const problem& p) {
  return valid<R>(p);
}

#if defined(ORDO_GPU)
inline constexpr int threads_per_cta = 128;

template <int R, direction D>
ORDO_GLOBAL void __launch_bounds__(threads_per_cta) rope_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int pairs = p.n_rot / 2;
  const long long t = (long long)blockIdx.x * threads_per_cta + threadIdx.x;
  if (t >= (long long)p.n_heads * pairs) return;
  const int h = int(t / pairs), k = int(t % pairs);
#pragma unroll 1
  for (int i = 0; i < p.rows; ++i) rotate_pair<D>(p, i, h, k);
#else
  (void)p;
#endif
}

template <int R, direction D>
void launch_gpu(const problem& p, gpu::stream_t stream) {
  const long long threads = (long long)p.n_heads * (p.n_rot / 2);
  if (threads == 0) return;
  rope_kernel<R, D><<<unsigned((threads + threads_per_cta - 1) / threads_per_cta), threads_per_cta, 0,
                       gpu::native(stream)>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
}

using launcher = void (*)(const problem&, gpu::stream_t);

/// The launcher of every spec in op::for_each_spec's order (entry i is cpu_entries()[i]'s spec).
/// Provisional, like entries.hpp: kernels/rope.cpp takes these addresses so the kernels become
/// object code; the generic registry of DESIGN §3a replaces both.
inline std::vector<launcher> gpu_launchers() {
  std::vector<launcher> v;
  op::for_each_spec([&]<int R, direction D>() { v.push_back(&launch_gpu<R, D>); });
  return v;
}

/// gpu_launchers() built once, defined in kernels/rope.cpp (GPU builds only).
const std::vector<launcher>& gpu_launcher_table();
#endif

}  // namespace ordo::ops::rope
