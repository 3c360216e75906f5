// The reference's building blocks against independent formulations: the compressor's state
// machine against a direct "pool tokens 4c-4..4c+3" computation, YaRN's ramp against the values
// ds4-model.md §3.4.3 derives for Flash, Sinkhorn against double stochasticity and the spec's
// loop, the indexer's top-k tie rule against repeated argmax and a twin-state check, routing rules.
// tests/unit/ref/CMakeLists.txt also builds this file with each ORDO_MUTANT_* switch of
// include/ordo/ref: the test named there must then fail (WILL_FAIL).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <vector>

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

// HC pre's comb matrix against ds4-model.md §3.3 written out with plain arrays: the 4x4 logits
// from the mixer, then 1 softmax step + (iterations - 1) normalisation pairs. The comb part of the
// base is contrasty (sd 4), so Sinkhorn has not converged after 20 iterations and an
// off-by-one in the count is far above the comparison's 1e-13.
using mat4 = std::array<std::array<double, 4>, 4>;

mat4 spec_sinkhorn(const mat4& l, int pairs, double eps) {
  mat4 m{};
  for (int b = 0; b < 4; ++b) {
    double mx = l[0][b], sum = 0;
    for (int a = 1; a < 4; ++a) mx = std::max(mx, l[a][b]);
    for (int a = 0; a < 4; ++a) sum += std::exp(l[a][b] - mx);
    for (int a = 0; a < 4; ++a) m[a][b] = std::exp(l[a][b] - mx) / sum + eps;
  }
  auto rows = [&] {
    for (auto& row : m) {
      const double s = row[0] + row[1] + row[2] + row[3] + eps;
      for (double& v : row) v /= s;
    }
  };
  rows();
  for (int i = 0; i < pairs; ++i) {
    for (int b = 0; b < 4; ++b) {
      const double s = m[0][b] + m[1][b] + m[2][b] + m[3][b] + eps;
      for (int a = 0; a < 4; ++a) m[a][b] /= s;
    }
    rows();
  }
  return m;
}

TEST(RefHc, PreCombIsTwentySinkhornIterationsOfTheSpec) {
  config c = testing::tiny_config();
  ASSERT_EQ(c.hc_sinkhorn_iters, 20);
  testing::rng r(21);
  const int n = int(c.hc_count), d = int(c.n_embd);
  hc_weights w{r.gauss(c.hc_mix(), n * d, 0.02), r.gvec(3, 0.3, 1.0), r.gvec(c.hc_mix(), 0.5)};
  for (int i = 2 * n; i < c.hc_mix(); ++i) w.base[i] = 4.0 * r.gvec(1, 1.0)[0];
  const hc_state h = r.gauss(n, d, 1.0);
  // mix = fn . rms_norm_plain(flat), flat stream-major
  std::vector<double> flat(n * d);
  double ss = 0;
  for (int a = 0; a < n; ++a)
    for (int j = 0; j < d; ++j) flat[a * d + j] = h(a, j), ss += h(a, j) * h(a, j);
  const double inv = 1.0 / std::sqrt(ss / (n * d) + c.rms_eps);
  mat4 l{};
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      const int row = 2 * n + a + 4 * b;
      double mix = 0;
      for (int i = 0; i < n * d; ++i) mix += w.fn(row, i) * flat[i] * inv;
      l[a][b] = mix * w.scale[2] + w.base[row];
    }
  const mat4 want = spec_sinkhorn(l, 19, c.hc_eps), fewer = spec_sinkhorn(l, 18, c.hc_eps);
  const hc_split s = hc_pre(h, w, c);
  double off_by_one = 0;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      EXPECT_NEAR(s.comb(a, b), want[a][b], 1e-13) << a << "," << b;
      off_by_one = std::max(off_by_one, std::fabs(want[a][b] - fewer[a][b]));
    }
  EXPECT_GT(off_by_one, 1e-9);  // one iteration fewer is visible at this contrast
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

// ds4's CPU rule written as it is specified (ds4-model.md §3.4.7): k times, take the first index
// holding the largest remaining score.
std::vector<int> repeated_argmax(std::vector<double> score, int k) {
  std::vector<int> out;
  for (int n = 0; n < k && n < static_cast<int>(score.size()); ++n) {
    int best = -1;
    for (int i = 0; i < static_cast<int>(score.size()); ++i)
      if (score[i] != -INFINITY && (best < 0 || score[i] > score[best])) best = i;
    out.push_back(best);
    score[best] = -INFINITY;
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RefAttention, TopKEqualsRepeatedArgmaxOnTieHeavyScores) {
  std::mt19937_64 gen(12);
  int with_boundary_tie = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 1 + static_cast<int>(gen() % 24), k = 1 + static_cast<int>(gen() % (n + 1));
    std::vector<double> score(n);
    for (double& v : score) v = static_cast<double>(gen() % 4);  // four values: ties everywhere
    ASSERT_EQ(top_k_lowest_index(score, k), repeated_argmax(score, k)) << "trial " << trial;
    std::vector<double> sorted = score;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    with_boundary_tie += k < n && sorted[k - 1] == sorted[k];
  }
  EXPECT_GT(with_boundary_tie, 100);  // the cases where the rule decides were drawn
}

// The rule inside the layer: with the indexer's weights zeroed every score is exactly 0, so all
// compressed rows tie and lowest-index-first selects rows 0..k-1. Independently of the top-k
// code, a twin state holding only those k rows takes the "every visible row" path
// (n_comp <= top_k) and must give the same output bit for bit; a twin holding the last k rows
// (what ties-to-the-highest-index would pick) must differ, so the check can fail.
TEST(RefAttention, IndexerTiesSelectTheLowestRowsInTheLayer) {
  config c = testing::tiny_config();
  const model_weights m = testing::random_model(c, 5, /*with_mtp=*/false);
  layer_weights w = m.layers[1];
  ASSERT_EQ(c.ratio(1), 4);
  w.indexer.proj.setZero();
  const simulations sims = simulations::all_off();
  layer_state st = make_layer_state(c, 4);
  testing::rng r(6);
  const int k = c.indexer_top_k;
  int checked = 0;
  for (int pos = 0; pos < 40; ++pos) {
    const vec x = r.gvec(c.n_embd, 1.0);
    const bool emits = (pos + 1) % 4 == 0;  // a new compressed row would shift the twins' indices
    if (emits || static_cast<int>(st.comp.size()) <= k) {
      attention_forward(w, c, 4, st, x, pos, sims);
      continue;
    }
    layer_state first = st, last = st;
    first.comp.resize(k);
    first.index_keys.resize(k);
    last.comp.erase(last.comp.begin(), last.comp.end() - k);
    last.index_keys.erase(last.index_keys.begin(), last.index_keys.end() - k);
    const vec want = attention_forward(w, c, 4, first, x, pos, sims);
    const vec other = attention_forward(w, c, 4, last, x, pos, sims);
    const vec got = attention_forward(w, c, 4, st, x, pos, sims);
    EXPECT_EQ(got, want) << "pos " << pos;
    EXPECT_GT((other - want).cwiseAbs().maxCoeff(), 1e-6) << "pos " << pos << ": the rows chosen do not matter";
    ++checked;
  }
  EXPECT_GE(checked, 10);
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
  vec g(4), u(4);
  g << 20, -3, 1, -20;
  u << 20, -20, 0.5, 7;
  const vec o = clamped_swiglu(g, u, 10);
  EXPECT_DOUBLE_EQ(o[0], silu(10) * 10);
  EXPECT_DOUBLE_EQ(o[1], silu(-3) * -10);
  EXPECT_DOUBLE_EQ(o[2], silu(1) * 0.5);
  EXPECT_DOUBLE_EQ(o[3], silu(-20) * 7);  // the gate is clamped from above only: silu(-20), not silu(-10)
}

}  // namespace
}  // namespace ordo::ref
