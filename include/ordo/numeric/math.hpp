/// Portable float math whose bits are the same on the host, under nvcc and under hip-clang
/// (DESIGN §4, promise E2). Every function is range reduction plus a polynomial written only with
/// IEEE-exact operations: + − × ÷, fmaf and sqrtf, each correctly rounded on all three compilers as
/// long as nobody enables fast math (-ffast-math, --use_fast_math, -prec-div=false, flush-to-zero).
/// Every multiply-add is an explicit fmaf, because the build forbids the compiler to contract.
///
/// Functions: exp_f32, log1p_f32, log_f32, sigmoid_f32, silu_f32, softplus_f32, sqrt_f32,
/// rsqrt_f32. Max error over every float input: exp, sigmoid 0.76 ulp; silu 0.62; log1p, log
/// 0.86; softplus 1.18; sqrt, rsqrt 0.5 (tests/unit/numeric/math_test.cpp has the table and how
/// it was measured).
///
/// NaN rule (hardware NaN payloads differ: x86 makes 0xffc00000, NVIDIA 0x7fffffff): a NaN input
/// is returned unchanged, with no arithmetic on it, and an invalid operation (log1p(x < -1),
/// log(x < 0), sqrt(x < 0), rsqrt(x < 0)) returns the canonical quiet NaN 0x7fc00000.
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

/// y·2^n for n in [-252, 254] with a single rounding: y·2^(n/2) is exact whenever y is a normal
/// number of modest size (the callers pass |y| in [2^-1, 2^8]), so only the second product rounds,
/// which happens only when the result is subnormal or overflows, exactly as IEEE prescribes.
ORDO_HD inline float scale_pow2(float y, int n) {
  const int half = n / 2;
  return (y * pow2(half)) * pow2(n - half);
}

/// e^x = (hi + lo)·2^n for x in [-104, 89], hi in [0.70, 1.42] rounded to nearest, lo its
/// rounding error (to ~2^-29 relative: callers that need more than one ulp of y use it).
/// Reduction x = n·ln2 + r, |r| <= ln2/2 (n = nearest integer to x·log2e, by the 1.5·2^23
/// rounding trick), with ln2 split Cody–Waite style so n·ln2_hi and x − n·ln2_hi are exact; the
/// rounding error of r is recovered (r_err) and carried as a first-order correction. e^r is the
/// Taylor series to r^8 (truncation < 0.01 ulp on the interval): 1 + r + r²·P(r), where 1 + r is
/// split exactly (Fast2Sum) so that only the final addition rounds at the ulp of hi.
ORDO_HD inline float exp_reduced(float x, int& n, float& lo) {
  constexpr float log2e = 0x1.715476p+0f;
  constexpr float ln2_hi = 0x1.62e400p-1f;  // 16 significant bits: n·ln2_hi is exact for |n| <= 256
  constexpr float ln2_lo = 0x1.7f7d1cp-20f;
  constexpr float round_magic = 0x1.8p23f;  // adding and subtracting it rounds to an integer (RNE)
  const float n_f = (x * log2e + round_magic) - round_magic;
  n = static_cast<int>(n_f);
  const float r_hi = fmaf(-n_f, ln2_hi, x);  // exact (Sterbenz): x and n·ln2_hi within a factor 2
  const float r = fmaf(-n_f, ln2_lo, r_hi);
  const float r_err = fmaf(-n_f, ln2_lo, r_hi - r);  // (r_hi − n·ln2_lo) − r, to ~2^-35
  float p = 0x1.a01a02p-16f;        // 1/8!
  p = fmaf(p, r, 0x1.a01a02p-13f);  // 1/7!
  p = fmaf(p, r, 0x1.6c16c2p-10f);  // 1/6!
  p = fmaf(p, r, 0x1.111112p-7f);   // 1/5!
  p = fmaf(p, r, 0x1.555556p-5f);   // 1/4!
  p = fmaf(p, r, 0x1.555556p-3f);   // 1/3!
  p = fmaf(p, r, 0.5f);
  // e^(r + r_err) = 1 + r + r²·P(r) + r_err·(1 + r) + O(r_err²)
  const float tail = fmaf(r * r, p, fmaf(r, r_err, r_err));
  const float head = 1.0f + r;
  const float head_err = (1.0f - head) + r;  // exact: Fast2Sum with |1| >= |r|
  const float rest = head_err + tail;
  const float hi = head + rest;
  lo = (head - hi) + rest;  // exact: Fast2Sum with |head| >= 0.65 > |rest|
  return hi;
}

/// hi + lo == a + b exactly (Knuth's TwoSum: no precondition on the magnitudes).
ORDO_HD inline float two_sum(float a, float b, float& lo) {
  const float hi = a + b;
  const float b_virtual = hi - a;
  lo = (a - (hi - b_virtual)) + (b - b_virtual);
  return hi;
}

/// ln(u + c) + k_extra·ln2 for a normal u > 0 and a correction |c| <= ulp(u) (c/u enters to first
/// order). u = 2^k·m with m in [√2/2, √2), f = m − 1 (exact), s = f/(2+f):
/// ln(m) = f − (f²/2 − s·(f²/2 + R(s²))) with R the atanh series 2s²/3 + 2s⁴/5 + 2s⁶/7 + 2s⁸/9
/// (truncation < 0.02 ulp for |s| <= 0.172); (k + k_extra)·ln2 is added by the final fmaf (exact
/// product), and f, exact, is added last before it so the small terms carry the rounding.
ORDO_HD inline float log_reduced(float u, float c, int k_extra) {
  // Split u = 2^k·m with m in [√2/2, √2): offsetting the bit pattern by bits(1) − bits(√2/2)
  // makes the exponent field carry exactly when the mantissa is >= √2/2's, and undoing the
  // offset on the mantissa bits alone gives m.
  constexpr std::uint32_t sqrt_half_bits = 0x3f3504f3u;
  const std::uint32_t shifted = bits_of(u) + (0x3f800000u - sqrt_half_bits);
  const int k = static_cast<int>(shifted >> 23) - 127 + k_extra;
  const float m = float_of((shifted & 0x7fffffu) + sqrt_half_bits);
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

/// ln(1 + x + x_lo) for finite x > −1, x != 0, |x_lo| tiny against x (a correction carried by
/// the caller). |x| < 2^-10: the Taylor series. Otherwise u = 1 + x is formed in float, its
/// rounding error is recovered exactly (Fast2Sum) and joins x_lo as log_reduced's correction.
ORDO_HD inline float log1p_core(float x, float x_lo) {
  if (fabsf(x) < 0x1p-10f) {
    // x + x_lo + (−x²/2 + x³/3 − x⁴/4 + x⁵/5): the series tail is < 2^-41 relative, and only the
    // final addition rounds at the ulp of the result (the added term is < 2^-11 of x).
    float q = fmaf(x, 0x1.99999ap-3f, -0.25f);  // −1/4 + x/5
    q = fmaf(q, x, 0x1.555556p-2f);             // 1/3 + x·(...)
    q = fmaf(q, x, -0.5f);                      // −1/2 + x·(...)
    return x + fmaf(x * x, q, x_lo);
  }
  const float u = 1.0f + x;  // >= 2^-24: the float just above −1 is −1 + 2^-24
  const float c = (x >= 1.0f ? 1.0f - (u - x) : x - (u - 1.0f)) + x_lo;  // 1 + x + x_lo == u + c
  return log_reduced(u, c, 0);
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
  float lo = 0.0f;
  const float y = detail::exp_reduced(x, n, lo);
  return detail::scale_pow2(y, n);
}

/// ln(1 + x), accurate for tiny x. |x| < 2^-10: the Taylor series to x⁵. Otherwise u = 1 + x is
/// formed in float and its rounding error c is recovered exactly (Fast2Sum), so ln(1+x) = ln(u) +
/// c/u to first order, with ln(u) from detail::log_reduced (an atanh-series kernel on
/// m in [√2/2, √2) plus k·ln2). Specials: ±0 → ±0, −1 → −inf, < −1 → canonical NaN, +inf → +inf.
ORDO_HD inline float log1p_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x == 0.0f) return x;  // keeps the sign of zero
  if (x < -1.0f) return detail::canonical_nan();
  if (x == -1.0f) return detail::float_of(0xff800000u);
  if (x == detail::float_of(0x7f800000u)) return x;
  return detail::log1p_core(x, 0.0f);
}

/// ln(x) for x > 0, with the same kernel as log1p (detail::log_reduced); subnormal x is scaled by
/// 2^24 first and 24·ln2 subtracted inside the kernel's exact k·ln2 step. Specials: ±0 → −inf,
/// x < 0 → canonical NaN, +inf → +inf, ln(1) = +0.
ORDO_HD inline float log_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x == 0.0f) return detail::float_of(0xff800000u);
  if (x < 0.0f) return detail::canonical_nan();
  if (x == detail::float_of(0x7f800000u)) return x;
  if (x < 0x1p-126f) return detail::log_reduced(x * 0x1p24f, 0.0f, -24);  // exact scaling
  return detail::log_reduced(x, 0.0f, 0);
}

namespace detail {

/// 1 + e^−x as 2^n·(s_hi + s_lo), for x in [−80, 40]: with e^−x = (hi + lo)·2^n it is
/// 2^n·(2^−n + hi + lo), and 2^−n + hi + lo is formed exactly enough (TwoSum) that dividing by it
/// loses nothing before the final rounding. Returns 2^−n through `scale`.
ORDO_HD inline void one_plus_exp_neg(float x, float& s_hi, float& s_lo, float& scale) {
  int n = 0;
  float lo = 0.0f;
  const float hi = exp_reduced(-x, n, lo);
  scale = pow2(-n);  // n in [−58, 116]
  s_hi = two_sum(scale, hi, s_lo);
  s_lo += lo;
}

}  // namespace detail

/// 1/(1 + e^−x), accurate for both signs: 1 + e^−x is kept as a two-float value scaled by 2^n
/// (so no overflow for negative x and no lost digits in 1 + e^−x), the reciprocal q is refined
/// with its exact remainder 1 − q·s_hi, and the result is rescaled exactly: one final rounding.
/// x > 40 → 1 (the true value is within 2^-57 of 1). x < −80 → e^x itself (1 + e^x rounds to 1
/// there; the relative difference ~e^x is negligible), which stays accurate into the subnormals.
/// sigmoid(+inf) = 1, sigmoid(−inf) = +0.
ORDO_HD inline float sigmoid_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x > 40.0f) return 1.0f;
  if (x < -80.0f) return exp_f32(x);
  float s_hi = 0.0f, s_lo = 0.0f, scale = 0.0f;
  detail::one_plus_exp_neg(x, s_hi, s_lo, scale);
  const float q = 1.0f / s_hi;
  const float rem = fmaf(-q, s_hi, 1.0f);  // exact: the remainder of a correctly rounded division
  const float recip = fmaf(q, fmaf(-q, s_lo, rem), q);  // 1/(s_hi + s_lo)
  return recip * scale;  // exact: a normal result times a power of two
}

/// x·sigmoid(x) (SwiGLU) as x/(1 + e^−x) with the same two-float denominator as sigmoid_f32 and
/// a remainder-corrected quotient, one final rounding. x > 40 → x. |x| < 2^-60 → x/2 (the
/// neglected x²/4 is below 2^-61 of it). Below −80 the result is x·e^x, formed as
/// x·(hi + lo)·2^n from the reduced exponential, rounded once to the float (subnormal) grid;
/// it is −0 below −120 and for −inf (instead of −inf·0 = NaN). silu(±0) = ±0, silu(+inf) = +inf.
ORDO_HD inline float silu_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x > 40.0f) return x;
  if (x < -80.0f) {
    if (x < -120.0f) return -0.0f;  // |x|·e^x < 2^-160 there: rounds to −0
    int n = 0;
    float lo = 0.0f;
    const float hi = detail::exp_reduced(x, n, lo);
    // x·(hi + lo) = v + v_err (v rounded once, v_err its error to ~2^-48 relative).
    const float p = x * hi;
    const float p_err = fmaf(x, hi, -p) + x * lo;
    const float v = p + p_err;
    const float v_err = (p - v) + p_err;  // Fast2Sum: |p| >= |p_err|
    float r = detail::scale_pow2(v, n);   // exact when normal, else rounded to the subnormal grid
    if (fabsf(r) < 0x1p-126f) {
      // v was rounded once already, so r may sit on the wrong side of a subnormal midpoint: move it
      // one subnormal step towards (v + v_err)·2^n when that is more than half a step away.
      const float back = detail::scale_pow2(r, -n);  // exact (scaling up)
      const float d = (v - back) + v_err;            // v − back exact (Sterbenz)
      const float half_step = detail::pow2(-150 - n);
      if (d > half_step) r += 0x1p-149f;
      else if (d < -half_step) r -= 0x1p-149f;
    }
    return r;
  }
  if (fabsf(x) < 0x1p-60f) return x * 0.5f;  // also keeps the sign of ±0
  float s_hi = 0.0f, s_lo = 0.0f, scale = 0.0f;
  detail::one_plus_exp_neg(x, s_hi, s_lo, scale);
  const float q = x / s_hi;
  const float rem = fmaf(-q, s_hi, x);  // exact remainder (q is normal here)
  const float quotient = q + fmaf(-q, s_lo, rem) / s_hi;  // x/(s_hi + s_lo)
  return quotient * scale;  // exact: a normal result times a power of two
}

/// ln(1 + e^x) (router logits), with e^x kept as hi + lo so log1p sees it unrounded.
/// x > 0: x + log1p(e^−x), so no overflow; for x > 20 that sum already rounds to x
/// (log1p(e^−20) < 2.1e-9 is below half an ulp of 20), so x is returned directly with the same
/// bits. x < −20: e^x itself (ln(1+e) = e − e²/2 + …, and e/2 < 1.1e-9 is far below rounding).
/// Otherwise log1p(e^x). softplus(+inf) = +inf, softplus(−inf) = +0, softplus(±0) = ln 2.
ORDO_HD inline float softplus_f32(float x) {
  if (detail::is_nan(x)) return x;
  if (x > 20.0f) return x;
  if (x < -20.0f) return exp_f32(x);
  const bool positive = x > 0.0f;
  int n = 0;
  float lo = 0.0f;
  const float hi = detail::exp_reduced(positive ? -x : x, n, lo);
  const float scale = detail::pow2(n);  // n in [−29, 0]: both products below stay normal
  const float l = detail::log1p_core(hi * scale, lo * scale);
  return positive ? x + l : l;
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
