// compressor specializations: every store and emit spec of ops::compressor::op's space for the
// build's GPU (provisional until registry::table<Op> lands; then this file becomes the
// instantiation line of §3a). A CPU build has no kernels to make: the CPU executor is header-only
// (ops/compressor/cpu.hpp).
#include "ordo/ops/compressor/kernel.hpp"

#if defined(ORDO_GPU)
namespace ordo::ops::compressor {
#if defined(ORDO_DEVICE_PASS)
// The device pass must not export host addresses (see registry/instantiate.hpp); naming the
// launchers in a host function still makes their kernels instantiate for the device.
[[maybe_unused]] static __host__ void device_pass_launchers() {
  (void)store_launchers();
  (void)emit_launchers();
}
#else
const std::vector<store_launcher>& store_launcher_table() {
  static const std::vector<store_launcher> table = store_launchers();
  return table;
}
const std::vector<emit_launcher>& emit_launcher_table() {
  static const std::vector<emit_launcher> table = emit_launchers();
  return table;
}
#endif
}  // namespace ordo::ops::compressor
#endif
