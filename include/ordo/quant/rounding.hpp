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
#pragma once

#include <cmath>

#include "ordo/gpu/portability.hpp"

namespace ordo::quant {

/// round(x) to the nearest integer, ties to even, for |x| < 2^31.
ORDO_HD inline int nearest_even(float x) {
#if defined(ORDO_DEVICE_PASS)
  return static_cast<int>(rintf(x));
#else
  return static_cast<int>(__builtin_rintf(x));
#endif
}

/// round(x) to the nearest integer, ties away from zero (C `roundf`), for |x| <= 2^22. ggml's
/// Q8_0 weight quantizer uses roundf; this is the same function without a libm call.
ORDO_HD inline int nearest_away(float x) {
  const float a = x < 0.0f ? -x : x;
  int r = nearest_even(a);
  // A tie that RNE sent down is exactly r + 0.5 (exact sum for r < 2^22); only then go up.
  if (static_cast<float>(r) + 0.5f == a) r += 1;
  return x < 0.0f ? -r : r;
}

}  // namespace ordo::quant
