/// The one GPU entry of every op family (CUTLASS's device_kernel<Operator> idea): a __global__
/// template over a family's kernel type that owns the device-pass guard and the dynamic shared
/// memory, and one launch that asks the kernel for its grid, block and shared-memory size and
/// refuses a problem the kernel cannot run. A family writes only Kernel::run_cta.
///
/// Kernel contract (GPU side): `problem`, `threads`, `shared_bytes`, `grid(problem)` (CTAs;
/// 0 = nothing to do), `can_run(problem)`, and `ORDO_DEVICE static void run_cta(const problem&,
/// std::byte* shared)`; optionally `try_specialized_launch(problem, stream)`.
#pragma once
#include <cstddef>
#include <stdexcept>

#include "ordo/gpu/portability.hpp"
#if defined(ORDO_GPU)
#include <cstdint>

#include "ordo/gpu/device_api.hpp"
#endif

namespace ordo::ops {

#if defined(ORDO_GPU)
template <class Kernel>
ORDO_GLOBAL void __launch_bounds__(Kernel::threads) device_kernel(typename Kernel::problem p) {
  // hip-clang and nvcc parse this body in the host pass too; only the device pass may touch
  // device-only code (shuffles, __syncthreads, shared memory).
#if defined(ORDO_DEVICE_PASS)
  extern __shared__ uint4 ordo_dynamic_shared[];  // uint4: 16-byte aligned for the widest copies
  Kernel::run_cta(p, reinterpret_cast<std::byte*>(ordo_dynamic_shared));
#else
  (void)p;
#endif
}

template <class Kernel>
void launch_gpu(const typename Kernel::problem& p, gpu::stream_t stream) {
  static_assert(Kernel::shared_bytes <= 48 * 1024, "a kernel's shared memory exceeds 48 KiB");
  if (!Kernel::can_run(p)) throw std::invalid_argument("launch_gpu: the kernel cannot run this problem");
  // A kernel may carry a specialized arrangement of the same bits (its own __global__), tried
  // first; it says false where its preconditions fail and the generic entry runs.
  if constexpr (requires { Kernel::try_specialized_launch(p, stream); })
    if (Kernel::try_specialized_launch(p, stream)) return;
  const unsigned grid = Kernel::grid(p);
  if (grid == 0) return;
  device_kernel<Kernel><<<grid, Kernel::threads, Kernel::shared_bytes, gpu::native(stream)>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
}
#endif

}  // namespace ordo::ops
