/// The kv_store GPU kernel (HIP and CUDA from one source): one CTA of threads_per_cta threads per
/// row (blockIdx.x = row); thread t stores dims t, t + threads_per_cta, … Each value is computed
/// alone by the body (its block's amax is re-read by each thread: a max, the same in any order),
/// so nothing depends on R, the grid or the device.
#pragma once
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/ops/kv_store/body.hpp"
#include "ordo/ops/kv_store/kv_store.hpp"

namespace ordo::ops::kv_store {

template <int R>
constexpr bool can_run(const problem& p) {
  return valid<R>(p);
}

#if defined(ORDO_GPU)
inline constexpr int threads_per_cta = 128;

template <int R>
ORDO_GLOBAL void __launch_bounds__(threads_per_cta) kv_store_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int i = int(blockIdx.x);
  if (i < p.rows) write_row(p, i, int(threadIdx.x), threads_per_cta);
#else
  (void)p;
#endif
}

template <int R>
void launch_gpu(const problem& p, gpu::stream_t stream) {
  kv_store_kernel<R><<<unsigned(p.rows), threads_per_cta, 0, gpu::native(stream)>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
}

using launcher = void (*)(const problem&, gpu::stream_t);

/// The launcher of every spec in op::for_each_spec's order (entry i is cpu_entries()[i]'s spec).
inline std::vector<launcher> gpu_launchers() {
  std::vector<launcher> v;
  op::for_each_spec([&]<int R>() { v.push_back(&launch_gpu<R>); });
  return v;
}

/// gpu_launchers() built once, defined in kernels/kv_store.cpp (GPU builds only).
const std::vector<launcher>& gpu_launcher_table();
#endif

}  // namespace ordo::ops::kv_store
