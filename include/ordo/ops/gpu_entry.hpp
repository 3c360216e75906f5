/// The one GPU entry of every op family (CUTLASS's device_kernel<Operator> idea): a __global__
/// template over a family's kernel type that owns the device-pass guard and the dynamic shared
/// memory, and one launch that asks the kernel for its grid, block and shared-memory size and
/// refuses a problem the kernel cannot run. A family writes only Kernel::run_cta.
///
/// Kernel contract (GPU side): `problem`, `threads`, `shared_bytes`, `grid(problem)` (CTAs;
/// 0 = nothing to do), `can_run(problem)`, and `ORDO_DEVICE static void run_cta(const problem&,
/// std::byte* shared)`; optionally `try_specialized_launch(problem, stream)`.
/// A kernel of dependent passes (every CTA of pass I must finish before pass I + 1 reads what it
/// wrote: attention's split-KV chunk maxima, sums and combine; the indexer's prepare, scores and
/// selection) declares `phases` instead of run_cta, with `grid(problem, phase)` and
/// `ORDO_DEVICE static void run_phase<I>(const problem&, std::byte* shared)`; the entry launches
/// phase 0, 1, … in order on the one stream (stream order is the barrier between them).
/// Either kind may carry `try_specialized_launch`, which launches every pass itself or nothing.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <utility>

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

/// Phase `Phase` of a kernel of dependent passes (see the contract above).
template <class Kernel, int Phase>
ORDO_GLOBAL void __launch_bounds__(Kernel::threads) device_phase_kernel(typename Kernel::problem p) {
#if defined(ORDO_DEVICE_PASS)
  extern __shared__ uint4 ordo_dynamic_shared[];
  Kernel::template run_phase<Phase>(p, reinterpret_cast<std::byte*>(ordo_dynamic_shared));
#else
  (void)p;
#endif
}

template <class Kernel, int Phase>
void launch_phase(const typename Kernel::problem& p, gpu::stream_t stream) {
  const unsigned grid = Kernel::grid(p, Phase);
  if (grid == 0) return;
  device_phase_kernel<Kernel, Phase><<<grid, Kernel::threads, Kernel::shared_bytes, gpu::native(stream)>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
}

template <class Kernel>
void launch_gpu(const typename Kernel::problem& p, gpu::stream_t stream) {
  static_assert(Kernel::shared_bytes <= 48 * 1024, "a kernel's shared memory exceeds 48 KiB");
  if (!Kernel::can_run(p)) throw std::invalid_argument("launch_gpu: the kernel cannot run this problem");
  // A kernel may carry a specialized arrangement of the same bits (its own __global__s), tried
  // first; it says false where its preconditions fail and the generic entry runs.
  if constexpr (requires { Kernel::try_specialized_launch(p, stream); })
    if (Kernel::try_specialized_launch(p, stream)) return;
  if constexpr (requires { Kernel::phases; }) {
    [&]<int... I>(std::integer_sequence<int, I...>) {
      (launch_phase<Kernel, I>(p, stream), ...);
    }(std::make_integer_sequence<int, Kernel::phases>{});
  } else {
    const unsigned grid = Kernel::grid(p);
    if (grid == 0) return;
    device_kernel<Kernel><<<grid, Kernel::threads, Kernel::shared_bytes, gpu::native(stream)>>>(p);
    ORDO_GPU_CHECK_LAUNCH();
  }
}
#endif

}  // namespace ordo::ops
