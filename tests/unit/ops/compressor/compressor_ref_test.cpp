// compressor against the double-precision reference (ordo::ref::compressor_step, then
// ordo::ref::fp8_kv_roundtrip on the first 448 dims) over whole sequences at DS4 dims: d = 512 with
// 448 FP8 dims + 64 RoPE dims; ratio 4 (W = 1024, overlapping windows, 16 emissions) and ratio 128
// (W = 512, 2 emissions); and the indexer emission (then ordo::ref::hadamard_fp4_roundtrip, as
// ref/attention.hpp makes the indexer rows) at indexer_dim 128, ratio 4 (W = 256), 4 windows. The ops run as the layer step runs them (passes of mixed tiers, then
// per-row emission); the reference steps token by token with wkv = [I 0], wgate = [0 I] and
// x = [kv; score], so it pools exactly the rows the ops stored. Bounds derived below, per element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compressor_harness.hpp"
#include "ordo/ref/compressor.hpp"
#include "ordo/ref/rounding.hpp"

namespace {

using namespace ordo::test::compressor;
using ordo::ops::compressor::emitted;
constexpr double u = ordo::test::unit_roundoff;

// Bounds, first order in u = 2^-24 (dropped terms below (300u)² relative).
//   Pooling a column over n entries (s_t, v_t): the ops' score s_t = sc + ape is rounded once
//   (|Δs_t| <= u|s_t|), so is the max; s_t − max rounds once and exp_f32 adds 0.76 ulp (1.52u),
//   so each weight e_t is off by a relative ρ <= u|s_t| + u|max| + u|s_t − max| + 1.52u. den adds
//   n terms (n·u), num n fmaf (n·u), the division u: with A = Σ e_t|v_t| / den,
//     |Δpooled| <= (2ρ + (2n + 2)u)·A                                      (|pooled| <= A).
//   Norm over d = 512 (k = 16 terms per lane): inv moves by Σ|x|·δ / (Σx² + d·eps) from the input
//   errors δ and by ((k + 8)/2 + 2)u from its own roundings (rmsnorm_ref_test's bound); the two
//   products add 2u:  |Δy_j| <= |w_j|·inv·(δ_j + |x_j|·(rel_inv + 2u)).
//   RoPE pair: |Δy0'| <= |c|Δy0 + |s|Δy1 + 3u(|y0·c| + |y1·s|) (the float cos/sin, one product,
//   one fmaf), the same for y1'.
//   FP8 (dims < 448): a value within the bound of a rounding boundary may land one E4M3 step q
//   away, and a block max within its bound of 448·2^k may double the block's grid: |Δ| <= bound + 2q,
//   q the E4M3 step of |y| at the reference's block scale.
//   Indexer rows (Hadamard + FP4 of all d dims): the Hadamard's outputs h_i = Σ ±y_j / sqrt(d)
//   carry the inputs' errors, Σ_j bound_j / sqrt(d), plus their own (log2 d + 2)u·Σ|y_j|/sqrt(d)
//   (the addition levels, rsqrt_f32 and the product): δ_i. An E2M1 decision can differ from the
//   reference's only where the double h_i lies within δ_i of a midpoint·scale (then the values are
//   one grid step apart, <= 2·scale), a block's scale only where its amax lies within δ of
//   6·2^k or 3·2^k (then <= 4·scale for the block); every other value must be equal, bit for bit.
struct column_bound {
  double pooled = 0, delta = 0;
};

column_bound pool_bound(const std::vector<double>& s, const std::vector<double>& v) {
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
double e4m3_step(double y, double scale) {
  const double a = std::fabs(y) / scale;
  const int e = a > 0 ? std::max(int(std::floor(std::log2(a))), -6) : -6;
  return std::ldexp(scale, e - 3);
}

void check_sequence(ratio g, int d, emitted rows, int positions, std::uint64_t seed) {
  const int r = ratio_of(g), w = coff_of(g) * d, n_fp8 = d - n_rot;
  int ambiguous = 0, exact = 0;  // FP4 values that differ where allowed; values compared bit for bit
  const auto c = make_case(g, d, positions, seed);
  // Passes of sizes 1..16 in a fixed rotation.
  std::vector<int> passes;
  for (int left = positions, k = 0; left > 0; ++k) {
    const int n = std::min(left, std::array{16, 3, 1, 8, 5, 2, 7}[std::size_t(k % 7)]);
    passes.push_back(n);
    left -= n;
  }
  const auto got = run_sequence(find_emit(g, "ls32", rows), c, passes, ring_rows_for(g, 16));

  ordo::ref::compressor_state st(r, d);
  ordo::ref::compressor_weights wt;
  wt.wkv = ordo::ref::mat::Zero(w, 2 * w);
  wt.wgate = ordo::ref::mat::Zero(w, 2 * w);
  for (int j = 0; j < w; ++j) wt.wkv(j, j) = 1, wt.wgate(j, w + j) = 1;
  wt.ape.resize(r, w);
  for (int k = 0; k < r; ++k)
    for (int j = 0; j < w; ++j) wt.ape(k, j) = c.ape[std::size_t(k) * std::size_t(w) + std::size_t(j)];
  wt.norm.resize(d);
  for (int j = 0; j < d; ++j) wt.norm[j] = c.norm[std::size_t(j)];
  const ordo::ref::config cfg;
  const auto rope = ordo::ref::layer_rope(cfg, r);
  const auto score = [&](std::int64_t p, int col) {  // the reference's score: sc + ape, exact in double
    if (p < 0) return -INFINITY * 1.0;
    return double(c.sc[std::size_t(p)][std::size_t(col)]) + wt.ape(int(p % r), col);
  };
  const auto value = [&](std::int64_t p, int col) { return p < 0 ? 0.0 : double(c.kv[std::size_t(p)][std::size_t(col)]); };

  std::size_t n_emitted = 0;
  double worst = 0;
  for (int p = 0; p < positions; ++p) {
    ordo::ref::vec x(2 * w);
    for (int j = 0; j < w; ++j) x[j] = c.kv[std::size_t(p)][std::size_t(j)], x[w + j] = c.sc[std::size_t(p)][std::size_t(j)];
    const auto out = ordo::ref::compressor_step(st, wt, x, p, rope, cfg.rms_eps);
    if (!out) continue;
    ASSERT_LT(n_emitted, got.compressed.size());
    const auto& have = got.compressed[n_emitted++];
    // Per-column pooling bounds from the window's entries.
    std::vector<column_bound> cb(d);
    for (int j = 0; j < d; ++j) {
      std::vector<double> s, v;
      if (g == ratio::r4) {
        for (int q = p - 7; q <= p - 4; ++q) s.push_back(score(q, j)), v.push_back(value(q, j));
        for (int q = p - 3; q <= p; ++q) s.push_back(score(q, d + j)), v.push_back(value(q, d + j));
      } else {
        for (int q = p - 127; q <= p; ++q) s.push_back(score(q, j)), v.push_back(value(q, j));
      }
      cb[std::size_t(j)] = pool_bound(s, v);
    }
    double sq = 0, cross = 0;
    for (const auto& b : cb) sq += b.pooled * b.pooled, cross += std::fabs(b.pooled) * b.delta;
    const double inv = 1 / std::sqrt(sq / d + cfg.rms_eps);
    const double rel_inv = cross / (sq + d * cfg.rms_eps) + ((d / 32.0 + 8) / 2 + 2) * u;
    std::vector<double> y(d), dy(d);
    for (int j = 0; j < d; ++j) {
      y[std::size_t(j)] = cb[std::size_t(j)].pooled * inv * wt.norm[j];
      dy[std::size_t(j)] = std::fabs(wt.norm[j]) * inv * (cb[std::size_t(j)].delta + std::fabs(cb[std::size_t(j)].pooled) * (rel_inv + 2 * u));
    }
    std::vector<double> bound = dy;
    for (int k = 0; k < n_rot / 2; ++k) {
      const int j0 = n_fp8 + 2 * k;
      const double t = ordo::ref::rope_angle(rope, double(p + 1 - r), k), cs = std::fabs(std::cos(t)), sn = std::fabs(std::sin(t));
      const double mag = std::fabs(y[std::size_t(j0)]) * (cs + sn) + std::fabs(y[std::size_t(j0 + 1)]) * (cs + sn);
      bound[std::size_t(j0)] = cs * dy[std::size_t(j0)] + sn * dy[std::size_t(j0 + 1)] + 3 * u * mag;
      bound[std::size_t(j0 + 1)] = sn * dy[std::size_t(j0)] + cs * dy[std::size_t(j0 + 1)] + 3 * u * mag;
    }
    ordo::ref::vec want = *out;
    const ordo::ref::vec before = want;
    if (rows == emitted::indexer) {
      ordo::ref::hadamard_fp4_roundtrip(want.data(), d);
      ordo::ref::vec pre = before;
      ordo::ref::hadamard_inplace(pre.data(), d);
      double in_err = 0, mag = 0;
      for (int j = 0; j < d; ++j) in_err += bound[std::size_t(j)], mag += std::fabs(before[j]);
      const double delta = (in_err + (std::log2(double(d)) + 2) * u * mag) / std::sqrt(double(d)) * 1.01;
      for (int b0 = 0; b0 < d; b0 += 32) {
        double amax = 7.052966104933725e-38;
        for (int j = b0; j < b0 + 32; ++j) amax = std::max(amax, std::fabs(pre[j]));
        const double scale = std::ldexp(1.0, ordo::ref::ceil_log2(amax / 6.0));
        const bool scale_moves = std::fabs(amax - 6 * scale) <= delta || std::fabs(amax - 3 * scale) <= delta;
        for (int j = b0; j < b0 + 32; ++j) {
          bool near = false;
          for (double m : {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0}) near |= std::fabs(std::fabs(pre[j]) - m * scale) <= delta;
          const double have_j = have[std::size_t(j)];
          if (!scale_moves && !near) {
            ASSERT_EQ(have_j, want[j]) << "indexer row " << n_emitted - 1 << " dim " << j;
            ++exact;
            continue;
          }
          ambiguous += have_j != want[j];
          ASSERT_LE(std::fabs(have_j - want[j]), (scale_moves ? 4 : 2) * scale) << "indexer row " << n_emitted - 1 << " dim " << j;
        }
      }
      continue;
    }
    ordo::ref::fp8_kv_roundtrip(want, n_fp8);
    for (int b0 = 0; b0 < n_fp8; b0 += 64) {
      const double amax = std::max(before.segment(b0, 64).cwiseAbs().maxCoeff(), 1e-4);
      const double scale = std::ldexp(1.0, ordo::ref::ceil_log2(amax / 448.0));
      for (int j = b0; j < b0 + 64; ++j) bound[std::size_t(j)] += 2 * e4m3_step(before[j], scale);
    }
    for (int j = 0; j < d; ++j) {
      const double err = std::fabs(double(have[std::size_t(j)]) - want[j]);
      ASSERT_LE(err, bound[std::size_t(j)]) << name_of(g) << " row " << n_emitted - 1 << " dim " << j;
      if (bound[std::size_t(j)] > 0) worst = std::max(worst, err / bound[std::size_t(j)]);
    }
  }
  EXPECT_EQ(n_emitted, got.compressed.size());
  EXPECT_EQ(n_emitted, std::size_t(positions / r));
  std::printf("compressor %s %s d %d: %zu rows, worst error / bound %.3g; FP4: %d values equal bit for bit, %d ambiguous differ\n",
              std::string(name_of(g)).c_str(), std::string(name_of(rows)).c_str(), d, n_emitted, worst, exact, ambiguous);
  // Nearly every indexer value is far from a decision point: the comparison is not vacuous.
  if (rows == emitted::indexer) EXPECT_GE(exact, int(0.95 * double(n_emitted) * d));
}

TEST(CompressorRef, Ratio4SequenceAgreesWithReferenceWithinDerivedBound) {
  check_sequence(ratio::r4, 512, emitted::attention, 64, 0x4444);
}
TEST(CompressorRef, Ratio128SequenceAgreesWithReferenceWithinDerivedBound) {
  check_sequence(ratio::r128, 512, emitted::attention, 256, 0x1280);
}
// The indexer compressor at DS4's indexer_dim 128: 16 positions, 4 windows (the first pools only
// its own lane B, the never-written window −1 scoring −inf).
TEST(CompressorRef, IndexerEmissionAgreesWithReferenceAtDs4Dims) {
  const ordo::ref::config cfg;
  check_sequence(ratio::r4, int(cfg.indexer_dim), emitted::indexer, 16, 0x1d4);
}

}  // namespace
