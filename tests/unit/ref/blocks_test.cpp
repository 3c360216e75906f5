// The reference's building blocks against independent formulations: the compressor's state
// machine against a direct "pool tokens 4c-4..4c+3" computation, YaRN's ramp against the values
// ds4-model.md §3.4.3 derives for Flash, Sinkhorn against double stochasticity, routing rules.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "ordo/ref/ref.hpp"
#include "tiny_model.hpp"

namespace ordo::ref {
namespace {

TEST(RefRope, InverseUndoesForwardAndPreservesNorm) {
  config c = testing::tiny_config();
  for (int ratio : {0, 4}) {
    const rope_params p = layer_rope(c, ratio);
    vec v(96);
    for (int i = 0; i < 96; ++i) v[i] = std::sin(0.5 + i);
    vec r = v;
    rope_tail(r.data(), 96, p, 123.0, rope_direction::forward);
    EXPECT_EQ(r.head(32), v.head(32));  // rope-free dims untouched
    EXPECT_NEAR(r.norm(), v.norm(), 1e-12);
    rope_tail(r.data(), 96, p, 123.0, rope_direction::inverse);
    EXPECT_LT((r - v).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(RefRope, YarnRampMatchesFlashCorrectionDims) {
  // Flash: base 160000, 64 rope dims, original context 65536, beta 32/1 -> lo 15, hi 25.
  const rope_params p{.n_rot = 64, .base = 160000.0, .yarn = true, .y = {}};
  for (int k = 0; k < 32; ++k) {
    const double extrap = 1000.0 * std::pow(160000.0, -2.0 * k / 64.0);
    const double want = k <= 15 ? extrap : k >= 25 ? extrap / 16.0 : extrap * (1.0 / 16 + (15.0 / 16) * (1 - (k - 15) / 10.0));
    EXPECT_NEAR(rope_angle(p, 1000.0, k), want, 1e-12 * extrap) << "pair " << k;
  }
  const rope_params plain{.n_rot = 64, .base = 10000.0, .yarn = false, .y = {}};
  EXPECT_DOUBLE_EQ(rope_angle(plain, 7.0, 3), 7.0 * std::pow(10000.0, -6.0 / 64.0));
}

TEST(RefRope, AdjacentPairsRotateByTheAngle) {
  const rope_params p{.n_rot = 4, .base = 100.0, .yarn = false, .y = {}};
  double v[6] = {9, 9, 1, 0, 0, 1};
  rope_tail(v, 6, p, 2.0, rope_direction::forward);
  EXPECT_NEAR(v[2], std::cos(2.0), 1e-15);
  EXPECT_NEAR(v[3], std::sin(2.0), 1e-15);
  const double th1 = 2.0 * std::pow(100.0, -2.0 / 4.0);
  EXPECT_NEAR(v[4], -std::sin(th1), 1e-15);
  EXPECT_NEAR(v[5], std::cos(th1), 1e-15);
  EXPECT_EQ(v[0], 9);
}

TEST(RefHc, SinkhornIsNearlyDoublyStochastic) {
  mat l(4, 4);
  l << 3, -1, 0.5, 2, 0, 0, 1, -2, 4, 1, -3, 0, 0.1, 0.2, 0.3, 0.4;
  const mat m = sinkhorn(l, 20, 1e-6);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(m.row(i).sum(), 1.0, 1e-3);
    EXPECT_NEAR(m.col(i).sum(), 1.0, 1e-3);
  }
  // one iteration = softmax over a per column + eps, then row normalization only
  const mat m1 = sinkhorn(l, 1, 0.0);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(m1.row(i).sum(), 1.0, 1e-14);
}

TEST(RefHc, PostMixesStreamsWithComb) {
  hc_split s;
  s.post = vec::Constant(2, 0.5);
  s.comb.resize(2, 2);
  s.comb << 1, 2, 3, 4;
  hc_state h(2, 3);
  h << 1, 1, 1, 10, 10, 10;
  vec f = vec::Constant(3, 2.0);
  const hc_state o = hc_post(f, h, s);
  EXPECT_DOUBLE_EQ(o(0, 0), 1 + 1 * 1 + 2 * 10);
  EXPECT_DOUBLE_EQ(o(1, 2), 1 + 3 * 1 + 4 * 10);
}

// Direct formulation: compressed row c of a ratio-4 layer pools tokens 4c-4..4c+3; tokens of the
// previous window contribute their first d columns, tokens of the current one their last d.
TEST(RefCompressor, Ratio4OverlapEqualsDirectPooling) {
  config c = testing::tiny_config();
  testing::rng r(7);
  const int d = 8;
  compressor_weights w = testing::random_compressor(r, c, 4, d);
  const rope_params no_rope{.n_rot = 0, .base = 1, .yarn = false, .y = {}};
  compressor_state st(4, d);
  std::vector<vec> xs;
  for (int t = 0; t < 16; ++t) xs.push_back(r.gvec(c.n_embd, 1.0));
  int emitted = 0;
  for (int t = 0; t < 16; ++t) {
    auto row = compressor_step(st, w, xs[t], t, no_rope, 1e-6);
    ASSERT_EQ(row.has_value(), (t + 1) % 4 == 0) << "pos " << t;
    if (!row) continue;
    const int cidx = emitted++;
    vec want(d);
    for (int j = 0; j < d; ++j) {
      double mx = -1e300;
      std::vector<std::pair<double, double>> sv;
      for (int tok = 4 * cidx - 4; tok <= 4 * cidx + 3; ++tok) {
        if (tok < 0) continue;
        const int col = tok < 4 * cidx ? j : d + j;
        const double s = (w.wgate.row(col) * xs[tok])(0) + w.ape(tok % 4, col);
        sv.push_back({s, (w.wkv.row(col) * xs[tok])(0)});
        mx = std::max(mx, s);
      }
      double num = 0, den = 0;
      for (auto [s, v] : sv) num += std::exp(s - mx) * v, den += std::exp(s - mx);
      want[j] = num / den;
    }
    want = rms_norm(want, w.norm, 1e-6);
    EXPECT_LT((*row - want).cwiseAbs().maxCoeff(), 1e-12) << "row " << cidx;
  }
  EXPECT_EQ(emitted, 4);
}

TEST(RefCompressor, Ratio128PoolsDisjointWindowsAndRopesAtTheWindowStart) {
  config c = testing::tiny_config();
  testing::rng r(8);
  const int d = 96;
  compressor_weights w = testing::random_compressor(r, c, 128, d);
  const rope_params rope = layer_rope(c, 128);
  compressor_state st(128, d);
  std::vector<vec> xs;
  for (int t = 0; t < 256; ++t) xs.push_back(r.gvec(c.n_embd, 1.0));
  for (int t = 0; t < 256; ++t) {
    auto row = compressor_step(st, w, xs[t], t, rope, 1e-6);
    ASSERT_EQ(row.has_value(), t == 127 || t == 255);
    if (!row) continue;
    const int start = t - 127;
    vec want(d);
    for (int j = 0; j < d; ++j) {
      double mx = -1e300;
      for (int tok = start; tok <= t; ++tok) mx = std::max(mx, (w.wgate.row(j) * xs[tok])(0) + w.ape(tok % 128, j));
      double num = 0, den = 0;
      for (int tok = start; tok <= t; ++tok) {
        const double e = std::exp((w.wgate.row(j) * xs[tok])(0) + w.ape(tok % 128, j) - mx);
        num += e * (w.wkv.row(j) * xs[tok])(0), den += e;
      }
      want[j] = num / den;
    }
    want = rms_norm(want, w.norm, 1e-6);
    rope_tail(want.data(), d, rope, start, rope_direction::forward);
    EXPECT_LT((*row - want).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(RefAttention, SinkOnlyInTheDenominator) {
  vec row(4);
  row << 1, 2, 3, 4;
  vec q = vec::Zero(4);  // z = 0 for the single row
  std::vector<const vec*> rows{&row};
  const vec o = sink_attention_head(q.data(), rows, 0.0, 0.5, 4);  // e^0 / (e^0 + e^0)
  EXPECT_LT((o - row / 2).cwiseAbs().maxCoeff(), 1e-15);
  const vec none = sink_attention_head(q.data(), rows, -std::numeric_limits<double>::infinity(), 0.5, 4);
  EXPECT_LT((none - row).cwiseAbs().maxCoeff(), 1e-15);
}

TEST(RefAttention, TopKTiesGoToTheLowestIndex) {
  EXPECT_EQ(top_k_lowest_index({0, 5, 0, 5, 0}, 3), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(top_k_lowest_index({1, 2, 3}, 5), (std::vector<int>{0, 1, 2}));
}

TEST(RefMoe, HashLayersUseTheTableAndWeightsSumToTheScale) {
  config c = testing::tiny_config();
  model_weights m = testing::random_model(c, 3, /*with_mtp=*/false);
  testing::rng r(4);
  const vec x = r.gvec(c.n_embd, 1.0);
  const routing h = route(m.layers[0], c, 0, x, 5);
  EXPECT_EQ(h.experts, std::vector<int>(m.layers[0].tid2eid[5].begin(), m.layers[0].tid2eid[5].end()));
  double sum = 0;
  for (double v : h.weight) sum += v;
  EXPECT_NEAR(sum, 1.5, 1e-12);
  // Top-k layer: the bias moves the selection but not the weights.
  layer_weights w = m.layers[1];
  w.router_bias.setZero();
  w.router_bias[2] = 1e6;  // forces expert 2 in
  const routing b = route(w, c, 1, x, 5);
  EXPECT_NE(std::find(b.experts.begin(), b.experts.end(), 2), b.experts.end());
  const vec logits = w.router * x;
  double psum = 0;
  for (int e : b.experts) psum += std::sqrt(softplus(logits[e]));
  for (std::size_t i = 0; i < b.experts.size(); ++i)
    EXPECT_NEAR(b.weight[i], std::sqrt(softplus(logits[b.experts[i]])) / psum * 1.5, 1e-12);
}

TEST(RefMoe, SwigluClampsGateAboveAndUpBothWays) {
  vec g(3), u(3);
  g << 20, -3, 1;
  u << 20, -20, 0.5;
  const vec o = clamped_swiglu(g, u, 10);
  EXPECT_DOUBLE_EQ(o[0], silu(10) * 10);
  EXPECT_DOUBLE_EQ(o[1], silu(-3) * -10);
  EXPECT_DOUBLE_EQ(o[2], silu(1) * 0.5);
}

}  // namespace
}  // namespace ordo::ref
