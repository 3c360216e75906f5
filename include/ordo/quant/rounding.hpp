/// Float → integer rounding used by the quantizers, identical on host, nvcc and hip-clang.
///
/// `nearest_even(x)` is IEEE roundToIntegralTiesToEven: `rintf` on the device (one cvt.rni /
/// v_rndne instruction) and `__builtin_rintf` on the host (roundss, or glibc's exact rintf), both in
/// the default rounding mode. For |x| <= 2^22 it equals ggml's `nearest_int` (add 1.5·2^23, read
/// the mantissa), which is what ggml's K-quant and Q8_K quantizers use. We use rint rather than the
/// add trick because a rint cannot be contracted with the product that feeds it: with the add trick,
/// a compiler allowed to fuse (nvcc's default -fmad=true) turns `nearest_int(x * id)` into
/// fma(x, id, 1.5·2^23) and changes ties; rint keeps the bits even in a TU built with contraction on.
/// `nearest_away(x)` is C `roundf` (ties away from zero), built on the same rint with comparisons
/// only, so it is contraction-proof too.
///
/// The quantizers store `code_even(v)` / `code_away(v)`: the rounded value, or 0 when v is not
/// finite. A non-finite scaled value only arises when a block's largest magnitude is so small
/// (below about 127/FLT_MAX = 3.7e-37) that the inverse scale overflows to infinity (x·inf, 0·inf).
/// ggml's bit trick and its x86 float → int8 conversion give 0 there, so we match its bytes instead
/// of an undefined float → int conversion that host and device would resolve differently.
#pragma once

#include <cmath>

#include "ordo/gpu/portability.hpp"

namespace ordo::quant {

/// True for every float that is neither infinite nor NaN (a bit test, the same on every backend).
ORDO_HD constexpr bool is_finite(float x) { return (__builtin_bit_cast(unsigned, x) & 0x7f800000u) != 0x7f800000u; }

/// round(x) to the nearest integer, ties to even, for finite |x| < 2^31.
ORDO_HD inline int nearest_even(float x) {
#if defined(ORDO_DEVICE_PASS)
  return static_cast<int>(rintf(x));
#else
  return static_cast<int>(__builtin_rintf(x));
#endif
}

/// round(x) to the nearest integer, ties away from zero (C `roundf`), for finite |x| <= 2^22.
/// ggml's Q8_0 weight quantizer uses roundf; this is the same function without a libm call.
ORDO_HD inline int nearest_away(float x) {
  const float a = x < 0.0f ? -x : x;
  int r = nearest_even(a);
  // A tie that RNE sent down is exactly r + 0.5 (exact sum for r < 2^22); only then go up.
  if (static_cast<float>(r) + 0.5f == a) r += 1;
  return x < 0.0f ? -r : r;
}

/// nearest_even(v), or 0 if v is infinite or NaN.
ORDO_HD inline int code_even(float v) { return is_finite(v) ? nearest_even(v) : 0; }

/// nearest_away(v), or 0 if v is infinite or NaN.
ORDO_HD inline int code_away(float v) { return is_finite(v) ? nearest_away(v) : 0; }

}  // namespace ordo::quant
