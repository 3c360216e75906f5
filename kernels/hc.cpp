// hc specializations: every spec of ops::hc::op's space for the build's GPU (provisional
// until registry::table<Op> lands; then this file becomes the one instantiation line of §3a).
// A CPU build has no kernels to make: the CPU executor is header-only (ops/hc/cpu.hpp).
#include "ordo/ops/hc/kernel.hpp"

#if defined(ORDO_GPU)
namespace ordo::ops::hc {
#if defined(ORDO_DEVICE_PASS)
// The device pass must not export host addresses (see registry/instantiate.hpp); naming the
// launchers in a host function still makes their kernels instantiate for the device.
[[maybe_unused]] static __host__ std::vector<launcher> device_pass_launchers() { return gpu_launchers(); }
#else
/// The exported launcher table, in op::for_each_spec's order.
const std::vector<launcher>& gpu_launcher_table() {
  static const std::vector<launcher> table = gpu_launchers();
  return table;
}
#endif
}  // namespace ordo::ops::hc
#endif
