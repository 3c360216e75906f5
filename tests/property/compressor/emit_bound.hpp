/// The float32-vs-double bound of an emitted compressor row (ops/compressor/problem.hpp), shared
/// by the emit harness's oracle and compressor_ref_test. First order in u = 2^-24 (dropped terms
/// below (300u)² relative):
///   Pooling a column over n entries (s_t, v_t): the stored score s_t = sc + ape is rounded once
///   (|Δs_t| <= u|s_t|), so is the max; s_t − max rounds once and exp_f32 adds 0.76 ulp (1.52u),
///   so each weight e_t is off by a relative ρ <= u|s_t| + u|max| + u|s_t − max| + 1.52u. den adds
///   n terms (n·u), num n fmaf (n·u), the division u: with A = Σ e_t|v_t| / den,
///     |Δpooled| <= (2ρ + (2n + 2)u)·A                                      (|pooled| <= A).
///   Norm over d (k = d/32 terms per lane): inv moves by Σ|x|·δ / (Σx² + d·eps) from the input
///   errors δ and by ((k + 8)/2 + 2)u from its own roundings (rmsnorm_ref_test's bound); the two
///   products add 2u:  |Δy_j| <= |w_j|·inv·(δ_j + |x_j|·(rel_inv + 2u)).
///   RoPE pair: |Δy0'| <= |c|Δy0 + |s|Δy1 + 3u(|y0·c| + |y1·s|) (the float cos/sin, one product,
///   one fmaf), the same for y1'.
///   FP8 (attention rows, dims < d − n_rot): a value within the bound of a rounding boundary may
///   land one E4M3 step q away, and a block max within its bound of 448·2^k may double the
///   block's grid: |Δ| <= bound + 2q, q the E4M3 step of |y| at the reference's block scale.
///   Indexer rows (Hadamard + FP4 of all d dims): the Hadamard's outputs h_i = Σ ±y_j / sqrt(d)
///   carry the inputs' errors, Σ_j bound_j / sqrt(d), plus their own (log2 d + 2)u·Σ|y_j|/sqrt(d)
///   (the addition levels, rsqrt_f32 and the product): δ_i. An E2M1 decision can differ from the
///   reference's only where the double h_i lies within δ_i of a midpoint·scale (then the values
///   are one grid step apart, <= 2·scale), a block's scale only where its amax lies within δ of
///   6·2^k or 3·2^k (then <= 4·scale for the block); every other value must be equal, bit for bit.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../drivers/data.hpp"
#include "ordo/ops/compressor/problem.hpp"
#include "ordo/ref/rounding.hpp"

namespace ordo::test::compressor {

/// The compressor norm's eps and DS4's RoPE tail, as the layer step passes them.
inline constexpr float eps = 1e-6f;
inline constexpr int n_rot = 64;

struct column_bound {
  double pooled = 0, delta = 0;
};

/// The double softmax pooling of one column's window entries (scores s, values v; −inf scores
/// weigh 0, a column of −inf scores pools to 0) and its bound.
inline column_bound pool_bound(const std::vector<double>& s, const std::vector<double>& v) {
  constexpr double u = unit_roundoff;
  const double mx = *std::max_element(s.begin(), s.end());
  column_bound b;
  if (mx == -INFINITY) return b;
  double den = 0, num = 0, mag = 0, rho = 0;
  for (std::size_t t = 0; t < s.size(); ++t) {
    const double e = std::exp(s[t] - mx);
    den += e, num += e * v[t], mag += e * std::fabs(v[t]);
    if (s[t] != -INFINITY) rho = std::max(rho, u * std::fabs(s[t]) + u * std::fabs(mx) + u * std::fabs(s[t] - mx) + 1.52 * u);
  }
  b.pooled = num / den;
  b.delta = (2 * rho + (2 * double(s.size()) + 2) * u) * mag / den;
  return b;
}

/// The E4M3 step at |y| in a block of scale `scale`.
inline double e4m3_step(double y, double scale) {
  const double a = std::fabs(y) / scale;
  const int e = a > 0 ? std::max(int(std::floor(std::log2(a))), -6) : -6;
  return std::ldexp(scale, e - 3);
}

/// The pooled columns normed by `norm` and tail-rotated by the pair angles theta (n_rot / 2 of
/// them), in double: the row before the FP8 / FP4 finish.
inline std::vector<double> normed_rotated(const std::vector<column_bound>& cb, const float* norm, double eps,
                                          const std::vector<double>& theta, int n_rot) {
  const int d = int(cb.size());
  double sq = 0;
  for (const auto& b : cb) sq += b.pooled * b.pooled;
  const double inv = 1 / std::sqrt(sq / d + eps);
  std::vector<double> y(static_cast<std::size_t>(d));
  for (int j = 0; j < d; ++j) y[std::size_t(j)] = cb[std::size_t(j)].pooled * inv * double(norm[j]);
  for (int k = 0; k < n_rot / 2; ++k) {
    const std::size_t j0 = std::size_t(d - n_rot + 2 * k);
    const double c = std::cos(theta[std::size_t(k)]), s = std::sin(theta[std::size_t(k)]), x0 = y[j0], x1 = y[j0 + 1];
    y[j0] = x0 * c - x1 * s;
    y[j0 + 1] = x0 * s + x1 * c;
  }
  return y;
}

struct emit_check {
  std::string failure;  // "" when every dim is within its bound
  double worst = 0;     // the largest error / bound
  int exact = 0;        // FP4 values compared bit for bit
  int ambiguous = 0;    // FP4 values near a decision that differ (allowed)
};

/// Checks the float row `have` against `before` (the caller's double reference of the row before
/// the finish: normed_rotated, or ordo::ref::compressor_step's output) put through the double
/// finish of `rows`, within the bound above (cb: the columns' pooled values and bounds).
inline emit_check check_emitted_row(ops::compressor::emitted rows, int n_rot, const std::vector<column_bound>& cb,
                                    const float* norm, double eps, const std::vector<double>& theta,
                                    const std::vector<double>& before, const float* have) {
  constexpr double u = unit_roundoff;
  const int d = int(cb.size()), n_fp8 = d - n_rot;
  emit_check out;
  double sq = 0, cross = 0;
  for (const auto& b : cb) sq += b.pooled * b.pooled, cross += std::fabs(b.pooled) * b.delta;
  const double inv = 1 / std::sqrt(sq / d + eps);
  const double rel_inv = cross / (sq + d * eps) + ((d / 32.0 + 8) / 2 + 2) * u;
  std::vector<double> y(static_cast<std::size_t>(d)), dy(static_cast<std::size_t>(d));
  for (int j = 0; j < d; ++j) {
    const auto& b = cb[std::size_t(j)];
    y[std::size_t(j)] = b.pooled * inv * double(norm[j]);
    dy[std::size_t(j)] = std::fabs(double(norm[j])) * inv * (b.delta + std::fabs(b.pooled) * (rel_inv + 2 * u));
  }
  std::vector<double> bound = dy;
  for (int k = 0; k < n_rot / 2; ++k) {
    const std::size_t j0 = std::size_t(n_fp8 + 2 * k);
    const double cs = std::fabs(std::cos(theta[std::size_t(k)])), sn = std::fabs(std::sin(theta[std::size_t(k)]));
    const double mag = (std::fabs(y[j0]) + std::fabs(y[j0 + 1])) * (cs + sn);
    bound[j0] = cs * dy[j0] + sn * dy[j0 + 1] + 3 * u * mag;
    bound[j0 + 1] = sn * dy[j0] + cs * dy[j0 + 1] + 3 * u * mag;
  }
  if (rows == ops::compressor::emitted::indexer) {
    std::vector<double> want = before, pre = before;
    ref::hadamard_fp4_roundtrip(want.data(), d);
    ref::hadamard_inplace(pre.data(), d);
    double in_err = 0, mag = 0;
    for (int j = 0; j < d; ++j) in_err += bound[std::size_t(j)], mag += std::fabs(before[std::size_t(j)]);
    const double delta = (in_err + (std::log2(double(d)) + 2) * u * mag) / std::sqrt(double(d)) * 1.01;
    for (int b0 = 0; b0 < d; b0 += 32) {
      const int b1 = std::min(b0 + 32, d);
      double amax = 7.052966104933725e-38;
      for (int j = b0; j < b1; ++j) amax = std::max(amax, std::fabs(pre[std::size_t(j)]));
      const double scale = std::ldexp(1.0, ref::ceil_log2(amax / 6.0));
      const bool scale_moves = std::fabs(amax - 6 * scale) <= delta || std::fabs(amax - 3 * scale) <= delta;
      for (int j = b0; j < b1; ++j) {
        bool near = false;
        for (double m : {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0}) near |= std::fabs(std::fabs(pre[std::size_t(j)]) - m * scale) <= delta;
        const double h = have[j], w = want[std::size_t(j)];
        if (!scale_moves && !near) {
          ++out.exact;
          if (!(h == w)) return {"indexer dim " + std::to_string(j) + ": " + std::to_string(h) + ", reference " + std::to_string(w)};
          continue;
        }
        out.ambiguous += h != w;
        if (!(std::fabs(h - w) <= (scale_moves ? 4 : 2) * scale))
          return {"indexer dim " + std::to_string(j) + " (near a decision): " + std::to_string(h) + ", reference " + std::to_string(w)};
      }
    }
    return out;
  }
  ref::vec want(d);
  for (int j = 0; j < d; ++j) want[j] = before[std::size_t(j)];
  ref::fp8_kv_roundtrip(want, n_fp8);
  for (int b0 = 0; b0 < n_fp8; b0 += 64) {
    const int b1 = std::min(b0 + 64, n_fp8);
    double amax = 1e-4;
    for (int j = b0; j < b1; ++j) amax = std::max(amax, std::fabs(before[std::size_t(j)]));
    const double scale = std::ldexp(1.0, ref::ceil_log2(amax / 448.0));
    for (int j = b0; j < b1; ++j) bound[std::size_t(j)] += 2 * e4m3_step(before[std::size_t(j)], scale);
  }
  for (int j = 0; j < d; ++j) {
    const double err = std::fabs(double(have[j]) - want[j]);
    if (!(err <= bound[std::size_t(j)]))
      return {"dim " + std::to_string(j) + ": " + std::to_string(have[j]) + ", reference " + std::to_string(want[j]) +
              ", bound " + std::to_string(bound[std::size_t(j)])};
    if (bound[std::size_t(j)] > 0) out.worst = std::max(out.worst, err / bound[std::size_t(j)]);
  }
  return out;
}

}  // namespace ordo::test::compressor
