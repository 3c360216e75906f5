/// Warp-level primitives with one spelling on every backend. Orders are *logical 32-lane*
/// schedules (DESIGN §3): on wave64 hardware a logical warp is one half of a wavefront, so a xor
/// shuffle with offset < 32 never crosses halves and the combine tree is the same everywhere.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"

namespace ordo::gpu {

inline constexpr int logical_warp = 32;

#if defined(ORDO_DEVICE_PASS)
/// Value of `v` held by lane (lane ^ offset) of this logical warp (offset in 1..16).
ORDO_DEVICE ORDO_FORCEINLINE float shfl_xor(float v, int offset) {
#if defined(ORDO_GPU_CUDA)
  return __shfl_xor_sync(0xffffffffu, v, offset, logical_warp);
#else
  return __shfl_xor(v, offset, logical_warp);
#endif
}

/// The int32 forms: the value of lane (lane ^ offset), and of lane `src` (0..31) of this logical warp.
ORDO_DEVICE ORDO_FORCEINLINE int32_t shfl_xor_i32(int32_t v, int offset) {
#if defined(ORDO_GPU_CUDA)
  return __shfl_xor_sync(0xffffffffu, v, offset, logical_warp);
#else
  return __shfl_xor(v, offset, logical_warp);
#endif
}
ORDO_DEVICE ORDO_FORCEINLINE int32_t shfl_i32(int32_t v, int src) {
#if defined(ORDO_GPU_CUDA)
  return __shfl_sync(0xffffffffu, v, src, logical_warp);
#else
  return __shfl(v, src, logical_warp);
#endif
}

/// Signed int8x4 dot product accumulated into an int32 (exact, any association).
ORDO_DEVICE ORDO_FORCEINLINE int32_t dot4_i8(int32_t a, int32_t b, int32_t acc) {
#if defined(ORDO_GPU_CUDA)
  return __dp4a(a, b, acc);
#elif defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || defined(__gfx1150__) || \
    defined(__gfx1151__) || defined(__gfx1200__) || defined(__gfx1201__)
  return __builtin_amdgcn_sudot4(true, a, true, b, acc, false);
#elif defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || \
    defined(__gfx1030__)
  return __builtin_amdgcn_sdot4(a, b, acc, false);
#else
  const auto* pa = reinterpret_cast<const int8_t*>(&a);
  const auto* pb = reinterpret_cast<const int8_t*>(&b);
  return acc + pa[0] * pb[0] + pa[1] * pb[1] + pa[2] * pb[2] + pa[3] * pb[3];
#endif
}
#else
/// Host side of dot4_i8: the same exact integer result.
inline int32_t dot4_i8(int32_t a, int32_t b, int32_t acc) {
  for (int i = 0; i < 4; ++i)
    acc += int32_t(int8_t(uint32_t(a) >> (8 * i))) * int32_t(int8_t(uint32_t(b) >> (8 * i)));
  return acc;
}
#endif

}  // namespace ordo::gpu
