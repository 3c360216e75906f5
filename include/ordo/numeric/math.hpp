/// Portable float math whose bits are the same on the host, under nvcc and under hip-clang
/// (DESIGN §4, promise E2). Every function is range reduction plus a polynomial written only with
/// IEEE-exact operations: + − × ÷, fmaf and sqrtf, each correctly rounded on all three compilers as
/// long as nobody enables fast math (-ffast-math, --use_fast_math, -prec-div=false, flush-to-zero).
/// Every multiply-add is an explicit fmaf, because the build forbids the compiler to contract.
///
/// NaN rule (hardware NaN payloads differ: x86 makes 0xffc00000, NVIDIA 0x7fffffff): a NaN input
/// is returned unchanged, with no arithmetic on it, and an invalid operation (log1p(x < -1),
/// sqrt(x < 0)) returns the canonical quiet NaN 0x7fc00000. Accuracy, measured against long double
/// on >= 10^6 inputs per function, is recorded in tests/unit/numeric/math_test.cpp.
#pragma once

#include <math.h>  // fmaf, sqrtf: host libm, CUDA and HIP device overloads share these names

#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"

namespace ordo::numeric {

namespace detail {

ORDO_HD inline bool is_nan(float x) { return (bits_of(x) & 0x7fffffffu) > 0x7f800000u; }
ORDO_HD inline float canonical_nan() { return float_of(0x7fc00000u); }

/// 2^n for n in [-126, 127], built from the exponent field (exact).
ORDO_HD inline float pow2(int n) { return float_of(static_cast<std::uint32_t>(n + 127) << 23); }

}  // namespace detail

namespace detail {

/// y·2^n for n in [-252, 254] with a single rounding: y·2^(n/2) is exact whenever y is a normal
/// number of modest size (the callers pass |y| in [2^-1, 2^8]), so only the second product rounds,
/// which happens only when the result is subnormal or overflows, exactly as IEEE prescribes.
ORDO_HD inline float scale_pow2(float y, int n) {
  const int half = n / 2;
  return (y * pow2(half)) * pow2(n - half);
}

/// e^x = y·2^n for x in [-104, 89], y in [0.70, 1.42]. Reduction x = n·ln2 + r, |r| <= ln2/2 (n =
/// nearest integer to x·log2e, by the 1.5·2^23 rounding trick), with ln2 split Cody–Waite style so
/// n·ln2_hi and x − n·ln2_hi are exact; e^r is the degree-7 Taylor polynomial (truncation < 0.12
/// ulp on the interval) in Horner form.
ORDO_HD inline float exp_reduced(float x, int& n) {
  constexpr float log2e = 0x1.715476p+0f;
  constexpr float ln2_hi = 0x1.62e400p-1f;  // 16 significant bits: n·ln2_hi is exact for |n| <= 256
  constexpr float ln2_lo = 0x1.7f7d1cp-20f;
  constexpr float round_magic = 0x1.8p23f;  // adding and subtracting it rounds to an integer (RNE)
  const float n_f = (x * log2e + round_magic) - round_magic;
  n = static_cast<int>(n_f);
  float r = fmaf(-n_f, ln2_hi, x);  // exact (Sterbenz): x and n·ln2_hi are within a factor 2
  r = fmaf(-n_f, ln2_lo, r);
  float p = 0x1.a01a02p-13f;        // 1/7!
  p = fmaf(p, r, 0x1.6c16c2p-10f);  // 1/6!
  p = fmaf(p, r, 0x1.111112p-7f);   // 1/5!
  p = fmaf(p, r, 0x1.555556p-5f);   // 1/4!
  p = fmaf(p, r, 0x1.555556p-3f);   // 1/3!
  p = fmaf(p, r, 0.5f);
  p = fmaf(p, r, 1.0f);
  return fmaf(p, r, 1.0f);
}

}  // namespace detail

/// e^x: detail::exp_reduced scaled by 2^n with one rounding, so subnormal results are rounded once
/// and overflow gives +inf as IEEE multiplication does. x > 89 → +inf, x < −104 → +0 (both far
/// past the float range of e^x), e^±0 = 1, e^−inf = +0.
ORDO_HD inline float exp_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x > 89.0f) return detail::float_of(0x7f800000u);
  if (x < -104.0f) return 0.0f;
  int n = 0;
  const float y = detail::exp_reduced(x, n);
  return detail::scale_pow2(y, n);
}

/// ln(1 + x), accurate for tiny x. u = 1 + x is formed in float and its rounding error c is
/// recovered exactly (Fast2Sum), so ln(1+x) = ln(u) + c/u to first order. u = 2^k·m with
/// m in [√2/2, √2), f = m − 1, s = f/(2+f): ln(m) = f − (f²/2 − s·(f²/2 + R(s²))) with R the
/// atanh series 2s²/3 + 2s⁴/5 + 2s⁶/7 + 2s⁸/9 (truncation < 0.02 ulp for |s| <= 0.172), and
/// k·ln2 is added by the final fmaf (exact product). Specials: ±0 → ±0, −1 → −inf, < −1 →
/// canonical NaN, +inf → +inf.
ORDO_HD inline float log1p_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x == 0.0f) return x;  // keeps the sign of zero
  if (x < -1.0f) return detail::canonical_nan();
  if (x == -1.0f) return detail::float_of(0xff800000u);
  if (x == detail::float_of(0x7f800000u)) return x;
  const float u = 1.0f + x;  // >= 2^-24: the float just above −1 is −1 + 2^-24
  const float c = x >= 1.0f ? 1.0f - (u - x) : x - (u - 1.0f);  // 1 + x == u + c exactly
  // Split u = 2^k·m with m in [√2/2, √2): offsetting the bit pattern by bits(1) − bits(√2/2)
  // makes the exponent field carry exactly when the mantissa is >= √2/2's, and undoing the
  // offset on the mantissa bits alone gives m.
  constexpr std::uint32_t sqrt_half_bits = 0x3f3504f3u;
  const std::uint32_t shifted = detail::bits_of(u) + (0x3f800000u - sqrt_half_bits);
  const int k = static_cast<int>(shifted >> 23) - 127;
  const float m = detail::float_of((shifted & 0x7fffffu) + sqrt_half_bits);
  const float f = m - 1.0f;  // exact (Sterbenz)
  const float s = f / (2.0f + f);
  const float z = s * s;
  float r = 0x1.c71c72p-3f;         // 2/9
  r = fmaf(r, z, 0x1.24924ap-2f);   // 2/7
  r = fmaf(r, z, 0x1.99999ap-2f);   // 2/5
  r = fmaf(r, z, 0x1.555556p-1f);   // 2/3
  r = r * z;
  const float k_f = static_cast<float>(k);
  constexpr float ln2_hi = 0x1.62e430p-1f;  // nearest float to ln2
  constexpr float ln2_lo = -0x1.05c610p-29f;
  const float hfsq = 0.5f * f * f;
  const float low = fmaf(k_f, ln2_lo, c / u);
  const float t = fmaf(s, hfsq + r, low);
  return fmaf(k_f, ln2_hi, f - (hfsq - t));
}

/// 1/(1 + e^−x). For x >= −80 exactly that expression (e^−x <= 5.6e34 cannot overflow, and for
/// negative x it is more accurate than e^x/(1 + e^x), which rounds e^x twice into the result).
/// Below −80, 1 + e^x rounds to 1, so the result is e^x itself (relative error ~e^x, negligible),
/// which keeps relative accuracy down into the subnormals. sigmoid(+inf) = 1, sigmoid(−inf) = +0.
ORDO_HD inline float sigmoid_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x < -80.0f) return exp_f32(x);
  return 1.0f / (1.0f + exp_f32(-x));
}

/// x·sigmoid(x) (SwiGLU). For x >= −80 as x/(1 + e^−x) (one rounding fewer than a product). Below
/// −80 the result is x·e^x, formed as (x·y)·2^n from the reduced exponential so that a subnormal
/// result is rounded once (scaling e^x first would lose |x|·0.5 subnormal ulps); it is −0 below
/// about −109 and for −inf (instead of −inf·0 = NaN). silu(±0) = ±0, silu(+inf) = +inf.
ORDO_HD inline float silu_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x < -80.0f) {
    if (x < -120.0f) return -0.0f;  // |x|·e^x < 2^-160 there: rounds to −0
    int n = 0;
    const float y = detail::exp_reduced(x, n);
    return detail::scale_pow2(x * y, n);
  }
  return x / (1.0f + exp_f32(-x));
}

/// ln(1 + e^x) (router logits). x > 0: x + log1p(e^−x), so no overflow; for x > 20 that sum
/// already rounds to x (log1p(e^−20) < 2.1e-9 is below half an ulp of 20), so x is returned
/// directly with the same bits. x < −20: e^x itself (ln(1+e) = e − e²/2 + …, and e/2 < 1.1e-9 is
/// far below rounding). Otherwise log1p(e^x). softplus(+inf) = +inf, softplus(−inf) = +0.
ORDO_HD inline float softplus_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x > 20.0f) return x;
  if (x < -20.0f) return exp_f32(x);
  if (x > 0.0f) return x + log1p_f32(exp_f32(-x));
  return log1p_f32(exp_f32(x));
}

/// Correctly rounded square root (the IEEE operation). Specials are handled before sqrtf so no
/// hardware NaN pattern escapes: ±0 → ±0, +inf → +inf, x < 0 → canonical NaN.
ORDO_HD inline float sqrt_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x < 0.0f) return detail::canonical_nan();
  if (x == 0.0f || x == detail::float_of(0x7f800000u)) return x;
  return sqrtf(x);
}

/// 1/sqrt(x): y = 1/sqrtf(x) (two correctly rounded operations, up to ~1.5 ulp), then one Newton
/// step y + y·(1 − x·y²)/2 whose residual is computed without rounding error (x·y split exactly
/// with fmaf), which leaves essentially only the final rounding. No approximate rsqrt instruction.
/// ±0 → ±inf, +inf → +0, x < 0 → canonical NaN.
ORDO_HD inline float rsqrt_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x == 0.0f) return detail::float_of((detail::bits_of(x) & 0x80000000u) | 0x7f800000u);
  if (x < 0.0f) return detail::canonical_nan();
  if (x == detail::float_of(0x7f800000u)) return 0.0f;
  const float y = 1.0f / sqrtf(x);
  const float t = x * y;
  const float t_lo = fmaf(x, y, -t);        // x·y == t + t_lo exactly
  float e = fmaf(-t, y, 1.0f);              // 1 − t·y: ~2^-22 in size, rounding error ~2^-46
  e = fmaf(-t_lo, y, e);                    // 1 − x·y²
  return fmaf(0.5f * y, e, y);
}

}  // namespace ordo::numeric
