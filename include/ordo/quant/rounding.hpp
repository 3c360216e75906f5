/// Float → integer rounding used by the quantizers. `nearest_even` is ggml's `nearest_int`: adding
/// 1.5·2^23 pushes the fraction bits out of a float, so the FPU's round-to-nearest-even does the
/// rounding and the integer is read back from the low mantissa bits. It is built from one IEEE add,
/// identical on host, nvcc and hip-clang (no libm call, no rounding-mode dependence beyond the
/// default RNE), and it is what ggml's K-quant and Q8_K quantizers use, so ours match theirs bit for
/// bit. Valid for |x| <= 4194303 (2^22 - 1); every caller stays far inside that.
#pragma once

#include <cstdint>

#include "ordo/gpu/portability.hpp"

namespace ordo::quant {

/// round(x) to the nearest integer, ties to even, for |x| <= 4194303.
ORDO_HD constexpr int nearest_even(float x) {
  // x + 12582912 lies in [2^23, 2^24): the unit in the last place is 1, so the add rounds x to an
  // integer (RNE) and the low 23 bits hold that integer + 2^22.
  const float shifted = x + 12582912.0f;
  const auto bits = __builtin_bit_cast(std::int32_t, shifted);
  return (bits & 0x007fffff) - 0x00400000;
}

/// round(x) to the nearest integer, ties away from zero (C `roundf`), for |x| <= 4194303. ggml's
/// Q8_0 weight quantizer uses roundf; this is the same function without a libm call.
ORDO_HD constexpr int nearest_away(float x) {
  const float a = x < 0.0f ? -x : x;
  int r = nearest_even(a);
  // r - a is exact (both are within one unit of each other); -0.5 means a tie that RNE sent down.
  if (static_cast<float>(r) - a == -0.5f) r += 1;
  return x < 0.0f ? -r : r;
}

}  // namespace ordo::quant
