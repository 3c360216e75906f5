/// Block scales stored as f16, widened on a device with the hardware's conversion where it gives
/// numeric::f16_to_f32's bits: every non-NaN half (the widening is exact); a NaN takes the
/// portable code's NaN (sign, quiet bit, payload moved up 13), which the hardware's need not be.
/// On the host both are numeric::f16_to_f32. tests/gpu/numeric/numeric_gpu_test.cpp checks both
/// against the host on all 65536 halves.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"

namespace ordo::ops::qmv {

#if defined(ORDO_DEVICE_PASS) && defined(ORDO_GPU_CUDA)
ORDO_DEVICE ORDO_FORCEINLINE float hardware_f16_to_f32(std::uint16_t h) {
  float f;
  asm("{ .reg .b16 t; mov.b16 t, %1; cvt.f32.f16 %0, t; }" : "=f"(f) : "h"(h));
  return f;
}
#endif

/// The hardware widening, branching to the portable code for a NaN.
ORDO_HD ORDO_FORCEINLINE float f16_scale_to_f32(std::uint16_t h) {
#if defined(ORDO_DEVICE_PASS) && defined(ORDO_GPU_CUDA)
  if ((h & 0x7fffu) <= 0x7c00u) return hardware_f16_to_f32(h);
#endif
  return numeric::f16_to_f32(h);
}

/// The same bits without a branch: the hardware widening, or the portable NaN, selected.
ORDO_HD ORDO_FORCEINLINE float f16_scale_to_f32_select(std::uint16_t h) {
#if defined(ORDO_DEVICE_PASS) && defined(ORDO_GPU_CUDA)
  const float f = hardware_f16_to_f32(h);
  const std::uint32_t nan = (std::uint32_t(h & 0x8000u) << 16) | 0x7fc00000u | (std::uint32_t(h & 0x3ffu) << 13);
  return (h & 0x7fffu) > 0x7c00u ? __uint_as_float(nan) : f;
#else
  return numeric::f16_to_f32(h);
#endif
}

/// f16_scale_to_f32_select as the widening a format's dot_scale takes (quant/q2_k.hpp,
/// quant/iq2_xxs.hpp): the portable numeric::f16_to_f32 took ~11 instructions and two branches a
/// scale in the chunk-cooperative windows' owner statement (ncu, session 22: the q2 layout's down
/// pass at 8 rows, two scales a Q2_K block).
struct f16_scale_widening {
  ORDO_HD ORDO_FORCEINLINE float operator()(std::uint16_t h) const { return f16_scale_to_f32_select(h); }
};

}  // namespace ordo::ops::qmv
