/// Asynchronous global → shared copies (sm_80+ `cp.async`), CUDA device code only: a warp issues
/// the loads of a later weight window and computes on an earlier one while they are in flight, so
/// each SM keeps tens of KiB of loads outstanding without a register staging step. The copy never
/// reads a byte past `src_bytes` (the rest of the 16 bytes is zero-filled), so a tail window ends
/// exactly at the end of the last row.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"

namespace ordo::ops::qmv::async_copy {

#if defined(ORDO_GPU_CUDA) && defined(ORDO_DEVICE_PASS)
/// Copies the first src_bytes (0..16) of the 16 bytes at gmem to smem (both 16-byte aligned) and
/// zero-fills the rest. With src_bytes == 0 nothing is read.
ORDO_DEVICE ORDO_FORCEINLINE void copy16(void* smem, const void* gmem, int src_bytes) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes) : "memory");
}
/// Closes the group of copies this thread issued since the last commit.
ORDO_DEVICE ORDO_FORCEINLINE void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
/// Waits until at most `Pending` of this thread's committed groups are still in flight.
template <int Pending>
ORDO_DEVICE ORDO_FORCEINLINE void wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}
#endif

}  // namespace ordo::ops::qmv::async_copy
