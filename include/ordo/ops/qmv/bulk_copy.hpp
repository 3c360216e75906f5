/// Bulk global → shared copies completed on a shared-memory barrier (sm_90 `cp.async.bulk` with an
/// `mbarrier`), CUDA device code only. One lane requests a whole weight window (every row: one
/// instruction each) where `cp.async` takes every lane a 16-byte piece at a time — the streaming
/// kernels' request loop was a fifth of their instructions. Source, destination and size must be
/// 16-byte multiples. A ring slot's barrier completes a phase when its one arrival (the requesting
/// lane's, which also announces the bytes) and all the bytes have landed; the consumer waits on the
/// slot's phase parity, which flips every time the ring comes round to the slot.
/// Moves bytes only: what lands is what cp.async would have put there.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"

namespace ordo::ops::qmv::bulk_copy {

/// Whether this device pass has the bulk copies (sm_90+); elsewhere callers use cp.async.
#if defined(ORDO_GPU_CUDA) && defined(ORDO_DEVICE_PASS) && __CUDA_ARCH__ >= 900
inline constexpr bool available = true;
#else
inline constexpr bool available = false;
#endif

/// A copy's byte count and both addresses must be 16-byte multiples.
inline constexpr unsigned granule = 16;

#if defined(ORDO_GPU_CUDA) && defined(ORDO_DEVICE_PASS) && __CUDA_ARCH__ >= 900
ORDO_DEVICE ORDO_FORCEINLINE unsigned smem_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

/// Makes `bar` a barrier of one arrival a phase; then fence_init() before any copy uses it.
ORDO_DEVICE ORDO_FORCEINLINE void init(std::uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_address(bar)) : "memory");
}
/// Makes `bar` a barrier of `arrivals` arrivals a phase (a ring slot's "empty" barrier, one arrival
/// a consuming warp); then fence_init().
ORDO_DEVICE ORDO_FORCEINLINE void init(std::uint64_t* bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(bar)), "r"(arrivals) : "memory");
}
/// One arrival on `bar` (announcing no bytes).
ORDO_DEVICE ORDO_FORCEINLINE void arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(bar)) : "memory");
}
/// Makes the initialized barriers visible to the bulk copies (the async proxy).
ORDO_DEVICE ORDO_FORCEINLINE void fence_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }

/// The requesting lane's arrival on `bar`, announcing the `bytes` its copies will bring.
ORDO_DEVICE ORDO_FORCEINLINE void expect(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_address(bar)), "r"(bytes) : "memory");
}

/// Copies `bytes` from gmem to smem; their arrival completes on `bar`.
ORDO_DEVICE ORDO_FORCEINLINE void copy(void* smem, const void* gmem, unsigned bytes, std::uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   smem_address(smem)),
               "l"(gmem), "r"(bytes), "r"(smem_address(bar))
               : "memory");
}

/// Waits until the phase of parity `phase` of `bar` has completed.
ORDO_DEVICE ORDO_FORCEINLINE void wait(std::uint64_t* bar, unsigned phase) {
  const unsigned b = smem_address(bar);
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(b), "r"(phase)
        : "memory");
  } while (done == 0);
}
#endif

}  // namespace ordo::ops::qmv::bulk_copy
