/// The reference's quantization simulations, computed exactly in double: F16 rounding of raw KV
/// rows, the E4M3 (FP8) round-trip of KV rows in blocks of 64, and the Hadamard-128 + E2M1 (FP4)
/// round-trip of indexer rows in blocks of 32 (ds4-model.md §3.4.4, §3.4.5, §3.4.8, §14).
/// Each rounding is "nearest representable value, ties to the even code", done by scaling to an
/// integer grid and calling nearbyint (round-half-even), which is exact in double for these grids.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "ordo/ref/weights.hpp"

namespace ordo::ref {

/// ceil(log2(v)) for v > 0, exact (frexp, not log2, which can round 2^k(1+tiny) down to k).
inline int ceil_log2(double v) {
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m * 2^e, m in [0.5, 1)
  return m == 0.5 ? e - 1 : e;
}

/// Rounds to the nearest IEEE binary16 value (ties to even); overflow gives ±inf.
inline double round_to_f16(double x) {
  if (!std::isfinite(x) || x == 0.0) return x;
  const double a = std::fabs(x);
  int e = 0;
  std::frexp(a, &e);                           // a in [2^(e-1), 2^e)
  const int exp = std::max(e - 1, -14);        // subnormals share the 2^-14 binade's quantum
  const double quantum = std::ldexp(1.0, exp - 10);
  const double r = std::nearbyint(a / quantum) * quantum;
  if (r > 65504.0) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return std::copysign(r, x);
}

/// Nearest E4M3FN value of y with |y| <= 448 (ties to the even code). Normal values are
/// (1+m/8)*2^(e-7), so the grid step in the binade of y is 2^(floor(log2|y|)-3); below 2^-6 the
/// subnormal step 2^-9 applies. The code's parity is the mantissa's, so half-even on the
/// integer multiple is ties-to-even-code.
inline double round_to_e4m3(double y) {
  if (y == 0.0) return y;
  const double a = std::fabs(y);
  int e = 0;
  std::frexp(a, &e);
  const int exp = std::max(e - 1, -6);
  const double quantum = std::ldexp(1.0, exp - 3);
  return std::copysign(std::min(std::nearbyint(a / quantum) * quantum, 448.0), y);
}

/// FP8 round-trip of a KV row's first `n_rope_free` dims in blocks of 64; the RoPE tail stays.
inline void fp8_kv_roundtrip(vec& row, int n_rope_free) {
  constexpr int block = 64;
  for (int b0 = 0; b0 < n_rope_free; b0 += block) {
    const int n = std::min(block, n_rope_free - b0);
    const double amax = std::max(row.segment(b0, n).cwiseAbs().maxCoeff(), 1e-4);
    const double scale = std::ldexp(1.0, ceil_log2(amax / 448.0));
    for (int i = b0; i < b0 + n; ++i)
      row[i] = round_to_e4m3(std::clamp(row[i] / scale, -448.0, 448.0)) * scale;
  }
}

/// Nearest E2M1 magnitude {0, .5, 1, 1.5, 2, 3, 4, 6}, ties to the even index; |y| <= 6.
inline double round_to_e2m1(double y) {
  static constexpr std::array<double, 8> grid{0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  const double a = std::fabs(y);
  int best = 0;
  for (int i = 1; i < 8; ++i) {
    const double d = std::fabs(a - grid[i]), db = std::fabs(a - grid[best]);
    if (d < db || (d == db && i % 2 == 0 && best % 2 != 0)) best = i;
  }
  return std::copysign(grid[best], y);
}

/// Unnormalized Walsh-Hadamard transform (butterflies of stride 1, 2, ..., n/2) times 1/sqrt(n).
inline void hadamard_inplace(double* v, int n) {
  for (int h = 1; h < n; h *= 2)
    for (int i = 0; i < n; i += 2 * h)
      for (int j = i; j < i + h; ++j) {
        const double a = v[j], b = v[j + h];
        v[j] = a + b;
        v[j + h] = a - b;
      }
  const double s = 1.0 / std::sqrt(static_cast<double>(n));
  for (int i = 0; i < n; ++i) v[i] *= s;
}

/// Hadamard rotation then E2M1 round-trip in blocks of 32 (scale 2^ceil(log2(amax/6)), amax
/// floored at 7.052966104933725e-38, no clipping), applied to one indexer head of width n.
inline void hadamard_fp4_roundtrip(double* v, int n) {
  hadamard_inplace(v, n);
  constexpr int block = 32;
  for (int b0 = 0; b0 < n; b0 += block) {
    const int m = std::min(block, n - b0);
    double amax = 7.052966104933725e-38;
    for (int i = b0; i < b0 + m; ++i) amax = std::max(amax, std::fabs(v[i]));
    const double scale = std::ldexp(1.0, ceil_log2(amax / 6.0));
    for (int i = b0; i < b0 + m; ++i) v[i] = round_to_e2m1(v[i] / scale) * scale;
  }
}

}  // namespace ordo::ref
