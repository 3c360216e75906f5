// Mode sample against what it promises: at DS4's 129,280 logits the full tier equals each row
// alone and the replay (P1, P2 at full size); T = 0 is greedy; each draw lies in the sampled
// token's interval of a double-precision distribution built independently from the definition
// (with the ambiguous cases — float rounding at a filter's cut or at an interval's edge — counted
// and bounded, not skipped silently); draws over many positions follow the double-precision
// probabilities (χ², fixed seed, so it cannot flake); the mutation checks' targets pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "sampling_checks.hpp"

namespace {

using namespace ordo::test;
using namespace ordo::test::sampling;

TEST(SamplingSample, FullTierAtDs4VocabularyEqualsRowsAloneAndReplay) {
  constexpr int n_vocab = 129280;
  // The full tier 16 with top-p and min-p (~50 passes per row), tier 4 with top-k.
  for (const auto& [tier, s] : {std::pair{16, settings{1.0f, 0, 0.9f, 0.02f, 7}}, std::pair{4, settings{0.7f, 50, 1.0f, 0.0f, 8}}}) {
    sampling_case c = H::make(n_vocab, tier, 2026 + s.seed, mode::sample);
    c.sampler = s;
    std::vector<int> rows(tier);
    std::iota(rows.begin(), rows.end(), 0);
    const auto run = H::run(cpu_backend(), entry_of(tier, mode::sample), c, rows, H::tight_layout());
    ASSERT_TRUE(run.padding_intact);
    const auto many = H::tokens(run);
    for (int r = 0; r < tier; ++r) {
      EXPECT_EQ(many[std::size_t(r)], tokens_of(entry_of(1, mode::sample), c, {r})[0]) << "row " << r;
      EXPECT_EQ(many[std::size_t(r)], H::replay_token(mode::sample, c, r)) << "row " << r;
    }
  }
}

TEST(SamplingSample, TemperatureZeroIsGreedy) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    sampling_case c = H::make(int(seed * 97 % 3000) + 1, 4, seed, mode::sample);
    c.sampler.temperature = seed % 2 ? 0.0f : -1.0f;
    EXPECT_EQ(tokens_of(entry_of(4, mode::sample), c, {0, 1, 2, 3}), tokens_of(entry_of(4, mode::greedy), c, {0, 1, 2, 3}));
  }
}

/// The double-precision distribution of a row under settings s, from the definition: weights
/// e^((z − z_max)/T) over the kept tokens (top-k prefix of the ranked tokens, the shortest prefix
/// of it whose mass reaches top_p, weights >= min_p), 0 elsewhere.
std::vector<double> double_weights(const std::vector<float>& z, const settings& s) {
  std::vector<int> ranked;
  for (int v = 0; v < int(z.size()); ++v)
    if (!std::isnan(z[std::size_t(v)])) ranked.push_back(v);
  std::stable_sort(ranked.begin(), ranked.end(), [&](int a, int b) { return z[std::size_t(a)] > z[std::size_t(b)]; });
  std::size_t keep = s.top_k > 0 ? std::min(ranked.size(), std::size_t(s.top_k)) : ranked.size();
  const double z_max = z[std::size_t(ranked[0])];
  std::vector<double> q(z.size(), 0.0);
  for (std::size_t i = 0; i < keep; ++i)
    q[std::size_t(ranked[i])] = std::exp((double(z[std::size_t(ranked[i])]) - z_max) / double(s.temperature));
  if (s.top_p < 1.0f) {
    double total = 0, cum = 0;
    for (std::size_t i = 0; i < keep; ++i) total += q[std::size_t(ranked[i])];
    std::size_t r = 0;
    while (r < keep && cum < double(s.top_p) * total) cum += q[std::size_t(ranked[r++])];
    for (std::size_t i = r; i < keep; ++i) q[std::size_t(ranked[i])] = 0;
  }
  for (auto& x : q)
    if (x < double(s.min_p)) x = 0;
  return q;
}

TEST(SamplingSample, DrawLiesInTheDoublePrecisionIntervalOfItsToken) {
  int draws = 0, cut_ambiguous = 0, edge_ambiguous = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    ordo::quant::splitmix64 rng{seed};
    const int n = 1 + int(rng() % 5000);
    sampling_case c{n, {H::make_row(n, rng() % 2 ? row_kind::soft : row_kind::soft_ties, rng)}, H::make_settings(rng), {rng()}};
    if (!(c.sampler.temperature > 0)) c.sampler.temperature = 1.0f;
    const auto& z = c.pool[0];
    if (!std::isfinite(z[std::size_t(ordo::ops::sampling::replay::argmax(z.data(), n))])) continue;
    const int token = tokens_of(entry_of(1, mode::sample), c, {0})[0];
    ++draws;
    const auto q = double_weights(z, c.sampler);
    const auto w = ordo::ops::sampling::replay::kept_weights(z.data(), n, c.sampler,
                                                            z[std::size_t(ordo::ops::sampling::replay::argmax(z.data(), n))]);
    bool same_set = true;
    for (int v = 0; v < n; ++v) same_set &= (q[std::size_t(v)] > 0) == (w[std::size_t(v)] > 0);
    if (!same_set) {  // float and double disagree on a cut (top-p mass or min-p weight at the boundary)
      ++cut_ambiguous;
      continue;
    }
    ASSERT_GT(q[std::size_t(token)], 0.0) << "seed " << seed << ": a filtered-out token was drawn";
    double before = 0, total = 0;
    for (int v = 0; v < n; ++v) (v < token ? before : total) += q[std::size_t(v)];
    total += before;
    const double lo = before / total, hi = (before + q[std::size_t(token)]) / total;
    const double u = double(ordo::ops::sampling::uniform_of(c.sampler.seed, c.positions[0]));
    // The float sums err by at most (chunk length + 256 chunks) roundings of the total, the weights
    // by a few ulps of exp and of (z − z_max)/T (|z − z_max| <= 32 here: 5 bits of the argument's
    // error reach the weight); 4× that bound is the margin of an ambiguous edge.
    const double delta = 4.0 * double((n + 255) / 256 + 256 + 64) * 0x1p-24;
    ASSERT_GE(u, lo - delta) << "seed " << seed << " token " << token;
    ASSERT_LE(u, hi + delta) << "seed " << seed << " token " << token;
    if (u < lo + delta || u > hi - delta) ++edge_ambiguous;
  }
  std::printf("%d draws: %d with a cut float and double disagree on, %d within the rounding margin of an edge\n", draws,
              cut_ambiguous, edge_ambiguous);
  EXPECT_GT(draws, 250);
  EXPECT_LE(cut_ambiguous, draws / 50);
  EXPECT_LE(edge_ambiguous, draws / 50);
}

TEST(SamplingSample, DrawsOverPositionsFollowTheDoublePrecisionProbabilities) {
  constexpr int n = 64, draws = 12000;
  ordo::quant::splitmix64 rng{4242};
  sampling_case c{n, {H::make_row(n, row_kind::soft, rng)}, settings{3.0f, 40, 0.97f, 0.05f, 0x5eed}, {0}};
  const auto q = double_weights(c.pool[0], c.sampler);
  const double q_total = std::accumulate(q.begin(), q.end(), 0.0);
  std::vector<int> count(n, 0);
  const auto& e = entry_of(1, mode::sample);
  for (int d = 0; d < draws; ++d) {
    c.positions[0] = std::uint64_t(d);
    ++count[std::size_t(tokens_of(e, c, {0})[0])];
  }
  double chi2 = 0;
  int kept = 0;
  for (int v = 0; v < n; ++v) {
    if (q[std::size_t(v)] == 0) {
      EXPECT_EQ(count[std::size_t(v)], 0) << "filtered-out token " << v << " drawn";
      continue;
    }
    ++kept;
    const double expected = draws * q[std::size_t(v)] / q_total;
    chi2 += (count[std::size_t(v)] - expected) * (count[std::size_t(v)] - expected) / expected;
  }
  // The χ² critical value at p = 1e-6 for kept − 1 degrees of freedom (Wilson–Hilferty, z = 4.75).
  const double k = kept - 1, t = 1 - 2 / (9 * k) + 4.75 * std::sqrt(2 / (9 * k));
  const double critical = k * t * t * t;
  std::printf("%d kept tokens, chi2 = %.2f (critical %.2f at p = 1e-6)\n", kept, chi2, critical);
  EXPECT_GT(kept, 5);
  EXPECT_LT(chi2, critical);
}

// The mutation checks' own targets pass on the real sampler (sampling_mutant_test's mutants must
// fail them).
TEST(SamplingSample, MutationChecksPassOnTheRealSampler) {
  EXPECT_EQ(tie_rule_mismatches(), 0);
  EXPECT_EQ(draw_order_mismatches(), 0);
  EXPECT_LT(seed_agreement(), 0.5);
}

}  // namespace
