// indexer against the double-precision reference at DS4 dims: 64 heads × 128, 4096 compressed
// key rows (Hadamard + FP4 round-tripped by ordo::ref::hadamard_fp4_roundtrip, as the indexer
// compressor emits them), top-512; two rows (the second sees 3000 keys). The transformed queries
// equal ordo::ref::hadamard_fp4_roundtrip's except where a float Hadamard output lies within its
// error bound of an FP4 decision point; the scores agree with the reference formula within a
// bound derived below; the selection equals ordo::ref::top_k_lowest_index wherever the 512th and
// 513th scores are further apart than the bound allows to swap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "data.hpp"  // tests/property/drivers: order-sensitive inputs
#include "ordo/ops/indexer/indexer.hpp"
#include "ordo/ref/attention.hpp"
#include "ordo/ref/config.hpp"
#include "ordo/ref/rounding.hpp"
#include "ordo/registry/table.hpp"

namespace {

using namespace ordo::ops::indexer;
using ordo::test::unit_roundoff;

constexpr double u = unit_roundoff;

// Hadamard bound: an output is Σ ±v_i over n = 128 inputs through log2 n = 7 addition levels
// (7u·Σ|v|), then × rsqrt_f32(n) (its 0.5 ulp and the product's rounding: 2u): |Δy| <= δ :=
// 9u·Σ|v|/sqrt(n) (×1.01). A transformed value can differ from the reference only if its double
// value lies within δ of a decision point midpoint·scale, or its block's amax within δ of
// 6·2^e (the scale itself may move): such elements are "ambiguous"; every other must be equal.
bool near_decision(double y, double scale, double delta) {
  static constexpr double midpoints[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0};
  for (double m : midpoints)
    if (std::fabs(std::fabs(y) - m * scale) <= delta) return true;
  return false;
}

// Score bound: each head's dot passes 128/32 = 4 lane fmaf and 5 butterfly additions (9u·A_h,
// A_h = Σ_d|q'_hd·k_d|); relu is 1-Lipschitz; w'_h = w_h ⊗ float(1/sqrt(128·64)) carries 2u;
// the 64-term fmaf chain at most 64u per term: |Δs| <= 75u·Σ_h |w'_h|·A_h (×1.01).

TEST(IndexerRef, Ds4AgreesWithReferenceWithinDerivedBounds) {
  const ordo::ref::config cfg;
  const int nh = int(cfg.indexer_heads), hd = int(cfg.indexer_dim), k = int(cfg.indexer_top_k), n_keys = 4096, rows = 2;
  ordo::quant::splitmix64 rng{0x1de7};
  std::vector<float> keys(std::size_t(n_keys) * std::size_t(hd));
  for (int r = 0; r < n_keys; ++r) {
    const auto raw = ordo::test::mixed_floats(rng, std::size_t(hd), 3);
    std::vector<double> v(raw.begin(), raw.end());
    ordo::ref::hadamard_fp4_roundtrip(v.data(), hd);
    for (int d = 0; d < hd; ++d) keys[std::size_t(r * hd + d)] = float(v[std::size_t(d)]);  // exact: E2M1 × 2^e
  }
  const auto q = ordo::test::mixed_floats(rng, std::size_t(rows * nh * hd), 3);
  const auto w = ordo::test::mixed_floats(rng, std::size_t(rows * nh), 3);
  const double w_scale = 1.0 / std::sqrt(double(hd) * nh);
  const std::vector<std::int32_t> n_visible{n_keys, 3000};
  std::vector<std::int32_t> selected(std::size_t(rows * k)), n_selected(rows);
  std::vector<float> scores(std::size_t(rows * n_keys)), q_fp4(q.size());
  problem p{q.data(), std::size_t(nh * hd), w.data(), std::size_t(nh), float(w_scale), keys.data(), std::size_t(hd), n_keys,
            n_visible.data(), k, selected.data(), std::size_t(k), n_selected.data(), scores.data(), std::size_t(n_keys),
            q_fp4.data(), nullptr, 0, nh, hd, rows};
  std::vector<std::int32_t> survivors(std::size_t(rows) * survivor_capacity(p));
  p.survivors = survivors.data(), p.survivor_stride = survivor_capacity(p);
  ordo::registry::find<op>("indexer.r2.ls32.hier").run_cpu(p);

  int ambiguous = 0, compared_rows = 0;
  double worst_score = 0;  // |error| / bound
  for (int i = 0; i < rows; ++i) {
    std::vector<double> ref_q(std::size_t(nh * hd));
    for (int h = 0; h < nh; ++h) {
      const float* v = q.data() + std::size_t((i * nh + h) * hd);
      double* y = ref_q.data() + std::size_t(h * hd);
      double abs_sum = 0;
      for (int d = 0; d < hd; ++d) y[d] = v[d], abs_sum += std::fabs(double(v[d]));
      // The reference's Hadamard before its FP4 step, to find the decision points.
      std::vector<double> pre(y, y + hd);
      ordo::ref::hadamard_inplace(pre.data(), hd);
      ordo::ref::hadamard_fp4_roundtrip(y, hd);
      const double delta = 9 * u * abs_sum / std::sqrt(double(hd)) * 1.01;
      for (int b0 = 0; b0 < hd; b0 += 32) {
        double amax = 7.052966104933725e-38;
        for (int d = b0; d < b0 + 32; ++d) amax = std::max(amax, std::fabs(pre[std::size_t(d)]));
        const double scale = std::ldexp(1.0, ordo::ref::ceil_log2(amax / 6.0));
        const bool scale_moves = std::fabs(amax - 6 * scale) <= delta || std::fabs(amax - 3 * scale) <= delta;
        for (int d = b0; d < b0 + 32; ++d) {
          const double got = q_fp4[std::size_t((i * nh + h) * hd + d)];
          if (scale_moves || near_decision(pre[std::size_t(d)], scale, delta)) {
            ambiguous += got != y[d];
            continue;
          }
          ASSERT_EQ(got, y[d]) << "row " << i << " head " << h << " dim " << d;
        }
      }
    }
    // Scores: the reference formula on the reference's queries where they match the op's.
    const bool same_q = std::equal(ref_q.begin(), ref_q.end(), q_fp4.begin() + std::ptrdiff_t(i * nh * hd));
    if (!same_q) continue;  // counted in `ambiguous`; the selection needs identical queries
    std::vector<double> ref_score(std::size_t(n_visible[std::size_t(i)]));
    double bound = 0;
    for (int c = 0; c < n_visible[std::size_t(i)]; ++c) {
      double s = 0, mag = 0;
      for (int h = 0; h < nh; ++h) {
        double dot = 0, a = 0;
        for (int d = 0; d < hd; ++d) {
          const double t = ref_q[std::size_t(h * hd + d)] * keys[std::size_t(c * hd + d)];
          dot += t, a += std::fabs(t);
        }
        const double wh = double(w[std::size_t(i * nh + h)]) * w_scale;
        s += std::max(0.0, dot) * wh;
        mag += std::fabs(wh) * a;
      }
      ref_score[std::size_t(c)] = s;
      const double b = 75 * u * mag * 1.01;
      bound = std::max(bound, b);
      const double err = std::fabs(double(scores[std::size_t(i * n_keys + c)]) - s);
      worst_score = std::max(worst_score, err / b);
      ASSERT_LE(err, b) << "row " << i << " key " << c;
    }
    std::vector<double> sorted = ref_score;
    std::nth_element(sorted.begin(), sorted.begin() + k, sorted.end(), std::greater<>());
    const double kth = *std::min_element(sorted.begin(), sorted.begin() + k), next = sorted[std::size_t(k)];
    if (kth - next <= 2 * bound) continue;  // the float scores may order the boundary pair either way
    ++compared_rows;
    const auto want = ordo::ref::top_k_lowest_index(ref_score, k);
    const std::vector<std::int32_t> got(selected.begin() + i * k, selected.begin() + i * k + n_selected[std::size_t(i)]);
    EXPECT_EQ(got, std::vector<std::int32_t>(want.begin(), want.end())) << "row " << i;
  }
  std::printf("indexer ds4 (64x128, 4096 keys, top-512): %d ambiguous FP4 values differ, worst score error / bound %.3g, "
              "%d of %d rows' selections compared\n", ambiguous, worst_score, compared_rows, rows);
  EXPECT_GE(compared_rows, 1);
}

}  // namespace
