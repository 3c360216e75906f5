/// Prefix sums across one logical 32-lane warp (integers: exact in any order, so the one schedule
/// serves every backend). For the CTA prologues that turn per-item counts into offsets (the moe
/// kernels' unit scan and pass table), where one thread's serial walk cost a shared-memory latency
/// an item while the CTA waited at a barrier; and the warp barrier that publishes what they wrote.
#pragma once
#include <cstdint>

#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/portability.hpp"

namespace ordo::gpu {

#if defined(ORDO_DEVICE_PASS)
/// Σ v over lanes 0..lane of this logical warp (every lane of it calls; Hillis–Steele, 5 shuffles).
ORDO_DEVICE ORDO_FORCEINLINE int32_t inclusive_sum_i32(int32_t v, int lane) {
#pragma unroll
  for (int d = 1; d < logical_warp; d *= 2) {
    const int32_t y = shfl_i32(v, lane >= d ? lane - d : lane);
    if (lane >= d) v += y;
  }
  return v;
}

/// A barrier of this logical warp: its lanes' shared-memory writes before it are seen by its lanes
/// after it (CUDA's __syncwarp; HIP 5.2 has none, and a wavefront's lanes run in step, so a
/// wavefront-scope fence pair around the wave barrier).
ORDO_DEVICE ORDO_FORCEINLINE void sync_warp() {
#if defined(ORDO_GPU_CUDA)
  __syncwarp();
#else
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#endif
}
#endif

}  // namespace ordo::gpu
