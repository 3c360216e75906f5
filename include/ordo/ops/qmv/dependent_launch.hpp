/// Programmatic dependent launch (sm_90 `griddepcontrol`, CUDA only): a kernel launched with it may
/// start while the kernel before it on the stream is still draining, and waits for that kernel's
/// completion (and the visibility of its writes) only where it first needs them. A qmv launch reads
/// two kinds of input: weights, written once at load time, and activations, written by the kernel
/// just before it. Requesting the first weight windows before the wait overlaps the weight stream
/// with the predecessor's tail wave and with the launch latency: on a 35 MB matrix (DS4's q_b,
/// ~9 µs of bytes) those are a third of the time. Nothing here changes an operation or its order.
///
/// `launch_overlap` says how far a kernel may run ahead of its predecessor:
///   none                — a plain launch (the predecessor has completed before the first CTA starts);
///   dependent_launch    — launched early, waits before touching any global memory;
///   weights_before_wait — launched early, requests its first weight windows, then waits before
///                         reading activations or writing outputs. Precondition: the kernel just
///                         before it on the stream does not write these weights (weights are
///                         uploaded by copies, never produced by the kernel chain).
#pragma once
#include <cstddef>
#include <string_view>

#include "ordo/gpu/portability.hpp"
#if defined(ORDO_GPU_CUDA)
#include "ordo/gpu/device_api.hpp"
#endif

namespace ordo::ops::qmv {

enum class launch_overlap { none, dependent_launch, weights_before_wait };

constexpr std::string_view ordo_name(launch_overlap o) {
  switch (o) {
    case launch_overlap::none: return "plain";
    case launch_overlap::dependent_launch: return "pdl";
    case launch_overlap::weights_before_wait: return "pdl_weights";
  }
  return "?";
}

namespace dependent_launch {
#if defined(ORDO_GPU_CUDA) && defined(ORDO_DEVICE_PASS)
/// Lets the next kernel on the stream (if launched as dependent) begin launching once every CTA of
/// this grid has called this or exited. It orders nothing: the dependent still waits for our completion.
ORDO_DEVICE ORDO_FORCEINLINE void allow_dependents() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
/// Blocks until the kernels this grid depends on have completed and their memory is visible
/// (returns at once for a grid launched without the dependent-launch attribute).
ORDO_DEVICE ORDO_FORCEINLINE void wait_for_predecessor() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
#endif

/// Whether this backend has dependent launches at all: CUDA's (sm_90 griddepcontrol) only; a HIP
/// build launches every kernel plainly.
#if defined(ORDO_GPU_CUDA)
inline constexpr bool available = true;
#else
inline constexpr bool available = false;
#endif

/// Whether launch() makes its launches dependent (the default where available) or plain: a
/// benchmark turns it off to measure, in the same run, what the overlap saves. Either way the same
/// operations run in the same order (a plain launch's wait_for_predecessor returns at once).
inline bool& enabled() {
  static bool on = available;
  return on;
}

#if defined(ORDO_GPU_CUDA)
/// Launches kernel<<<grid, block, smem, stream>>>(args...) as a dependent of the kernel before it on
/// the stream: it may begin once that kernel's CTAs have all called allow_dependents (or exited),
/// so it must call wait_for_predecessor before it reads anything that kernel (or one before it)
/// wrote, or writes anything they read.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), unsigned grid, unsigned block, std::size_t smem, gpu::stream_t stream, Args... args) {
  if (!enabled()) {
    kernel<<<grid, block, smem, gpu::native(stream)>>>(args...);
    ORDO_GPU_CHECK_LAUNCH();
    return;
  }
  cudaLaunchAttribute attr[1] = {};
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.dynamicSmemBytes = smem;
  config.stream = gpu::native(stream);
  config.attrs = attr;
  config.numAttrs = 1;
  ORDO_GPU_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
}
#endif
}  // namespace dependent_launch

}  // namespace ordo::ops::qmv
