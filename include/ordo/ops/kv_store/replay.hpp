/// The host replay of kv_store for P2, written from ds4-model.md §3.4.4–3.4.5 and not from the
/// body: in double, the block amax, scale = 2^ceil(log2(amax/448)) from frexp, the nearest E4M3
/// value by a search over the 127 code magnitudes (ties to the even code, as §3.4.4 states it),
/// the F16 rounding on its quantum grid with nearbyint. It shares no code with body.hpp or the
/// bit-level encoders of numeric/conversions.hpp, so a mistake in either is a mismatch.
#pragma once
#include <algorithm>
#include <cfenv>
#include <cmath>
#include <limits>
#include <vector>

#include "ordo/ops/kv_store/problem.hpp"

namespace ordo::ops::kv_store::replay {

/// E4M3FN value of code i (0..126): exp = i >> 3, man = i & 7; exp 0 → man·2^-9, else (1 + man/8)·2^(exp−7).
inline double e4m3_value(int i) {
  const int exp = i >> 3, man = i & 7;
  return exp == 0 ? man * std::ldexp(1.0, -9) : (1.0 + man / 8.0) * std::ldexp(1.0, exp - 7);
}

/// Nearest E4M3 value by magnitude, ties to the even code, sign restored; |y| <= 448.
inline double nearest_e4m3(double y) {
  const double a = std::fabs(y);
  int best = 0;
  for (int i = 1; i <= 126; ++i) {
    const double d = std::fabs(e4m3_value(i) - a), db = std::fabs(e4m3_value(best) - a);
    if (d < db || (d == db && i % 2 == 0)) best = i;
  }
  return std::copysign(e4m3_value(best), y);
}

/// Nearest F16 value (ties to even), ±inf past 65504 after rounding.
inline double nearest_f16(double x) {
  if (x == 0.0 || !std::isfinite(x)) return x;
  int e = 0;
  std::frexp(std::fabs(x), &e);
  const double quantum = std::ldexp(1.0, std::max(e - 1, -14) - 10);
  const double r = std::nearbyint(std::fabs(x) / quantum) * quantum;  // FE_TONEAREST: half to even
  return std::copysign(r > 65504.0 ? std::numeric_limits<double>::infinity() : r, x);
}

/// The FP8 round trip (§3.4.4) of x[0..n) in blocks of 64: exact values (each a float).
inline std::vector<double> fp8_values(const float* x, int n) {
  std::vector<double> out(static_cast<std::size_t>(n));
  for (int b0 = 0; b0 < n; b0 += fp8_block) {
    const int b1 = std::min(b0 + fp8_block, n);
    double amax = 1e-4;  // the reference's floor, in double
    for (int e = b0; e < b1; ++e) amax = std::max(amax, std::fabs(double(x[e])));
    int k = 0;
    const double m = std::frexp(amax / 448.0, &k);  // amax/448 = m·2^k, m in [0.5, 1)
    const double scale = std::ldexp(1.0, m == 0.5 ? k - 1 : k);
    for (int e = b0; e < b1; ++e)
      out[std::size_t(e)] = nearest_e4m3(std::clamp(double(x[e]) / scale, -448.0, 448.0)) * scale;
  }
  return out;
}

/// The values one row stores (F16-representable doubles), dims 0..head_dim−1.
inline std::vector<double> row(const float* kv, int head_dim, int n_rope_free) {
  std::vector<double> out = fp8_values(kv, n_rope_free);
  out.resize(static_cast<std::size_t>(head_dim));
  for (int e = 0; e < n_rope_free; ++e) out[std::size_t(e)] = nearest_f16(out[std::size_t(e)]);
  for (int e = n_rope_free; e < head_dim; ++e) out[std::size_t(e)] = nearest_f16(kv[e]);
  return out;
}

}  // namespace ordo::ops::kv_store::replay
