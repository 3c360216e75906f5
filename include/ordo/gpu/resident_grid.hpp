/// Sizing a persistent grid (CUDA): how many CTAs of kernel K the device holds at once, so a
/// persistent kernel launches that many and lets each warp stride over its work. Used by the
/// streaming kernels of qmv and moe, whose dynamic shared memory (weight rings, staged
/// activations) exceeds the default 48 KiB.
#pragma once
#include <cstddef>

#include "ordo/gpu/device_api.hpp"

namespace ordo::gpu {

#if defined(ORDO_GPU_CUDA)
/// SMs × the CTAs of K (`threads` threads, `smem` bytes of dynamic shared memory) one SM holds, on
/// the current device; 0 when smem exceeds the device's opt-in maximum. The first call raises K's
/// dynamic shared-memory limit to that maximum; the per-SM count is cached for the last smem asked.
template <auto* K>
int resident_ctas(int threads, std::size_t smem) {
  static const int max_smem = [] {
    int dev = 0, v = 0;
    ORDO_GPU_CHECK(cudaGetDevice(&dev));
    ORDO_GPU_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    ORDO_GPU_CHECK(cudaFuncSetAttribute(K, cudaFuncAttributeMaxDynamicSharedMemorySize, v));
    return v;
  }();
  if (smem > std::size_t(max_smem)) return 0;
  static const int sms = [] {
    int dev = 0, v = 0;
    ORDO_GPU_CHECK(cudaGetDevice(&dev));
    ORDO_GPU_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev));
    return v;
  }();
  static thread_local std::size_t cached_smem = 0;
  static thread_local int cached_per_sm = 1;
  if (cached_smem != smem) {
    int per_sm = 0;
    ORDO_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, K, threads, smem));
    cached_smem = smem;
    cached_per_sm = per_sm > 0 ? per_sm : 1;
  }
  return sms * cached_per_sm;
}
#endif

}  // namespace ordo::gpu
