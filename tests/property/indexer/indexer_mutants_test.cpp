// Kept mutation checks of the indexer's reductions, each put into a copy of a real registry entry
// and run through the generic P2 driver (which must fail) plus a per-case exactness loop: the head
// sum order and the q·key lane split (scores), and the tie rule (selection).
#include <algorithm>
#include <cstdio>

#include "gtest_family.hpp"
#include "ordo/ops/cpu_executor.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using ops::indexer::problem;
using ops::indexer::selector;
using H = harness<ops::indexer::op>;
using indexer_entry = registry::entry<ops::indexer::op>;

/// The real entry on the heads in reverse order (q's heads and the weights reversed together),
/// so each score sums the same terms from the last head down (MUTATION).
void reversed_heads(const problem& p) {
  const std::size_t hd = std::size_t(p.head_dim), nh = std::size_t(p.n_heads);
  std::vector<float> q(p.q, p.q + std::size_t(p.rows) * p.q_stride), w(p.head_weights, p.head_weights + std::size_t(p.rows) * p.w_stride);
  for (int i = 0; i < p.rows; ++i)
    for (std::size_t h = 0; h < nh; ++h) {
      std::copy_n(p.q + std::size_t(i) * p.q_stride + (nh - 1 - h) * hd, hd, q.begin() + std::ptrdiff_t(std::size_t(i) * p.q_stride + h * hd));
      w[std::size_t(i) * p.w_stride + h] = p.head_weights[std::size_t(i) * p.w_stride + nh - 1 - h];
    }
  problem m = p;
  m.q = q.data(), m.head_weights = w.data();
  registry::find<ops::indexer::op>("indexer.r2.ls32.flat").run_cpu(m);
}

/// An Order whose q·key is lane-blocked instead of ls32 (MUTATION).
struct blocked_dot_order {
  using dot_order = order::lane_blocked;
  static constexpr std::string_view name = "mutant";
};

/// The real entry on the key table reversed (ids mapped back), which sends ties to the highest id
/// (MUTATION). One row (tier 1).
void ties_to_highest_id(const problem& p) {
  const int n = p.n_visible[0];
  std::vector<float> keys(p.keys, p.keys + std::size_t(p.n_keys) * p.key_stride);
  for (int r = 0; r < n; ++r)
    std::copy_n(p.keys + std::size_t(n - 1 - r) * p.key_stride, p.key_stride, keys.begin() + std::ptrdiff_t(std::size_t(r) * p.key_stride));
  problem m = p;
  m.keys = keys.data();
  registry::find<ops::indexer::op>("indexer.r1.ls32.flat").run_cpu(m);
  std::vector<float> scores(p.scores, p.scores + n);
  for (int c = 0; c < n; ++c) p.scores[c] = scores[std::size_t(n - 1 - c)];
  for (int j = 0; j < p.n_selected[0]; ++j) p.selected[j] = n - 1 - p.selected[j];
  std::sort(p.selected, p.selected + p.n_selected[0]);
}

indexer_entry mutant_of(const char* name, void (*run)(const problem&)) {
  indexer_entry e = registry::find<ops::indexer::op>(name);
  e.run_cpu = run;
  return e;
}

bool equals_replay(const indexer_entry& e, const H::data& d, const std::vector<int>& ids) {
  const auto got = H::run(cpu_backend(), e, d, ids, H::tight_layout());
  if (!got.padding_intact) return false;
  for (std::size_t s = 0; s < ids.size(); ++s)
    if (!same_bits(got.rows[s], H::replay(e, d, ids[s]))) return false;
  return true;
}

void expect_p2_fails(const indexer_entry& bad, const char* what, params prm = mutant_params()) {
  const auto p2 = drivers<ops::indexer::op>::p2(cpu_backend(), bad, prm);
  std::printf("mutant indexer (%s): P2 %s\n", what, p2.status == outcome::fail ? "fails (caught)" : "passes (NOT caught)");
  EXPECT_EQ(p2.status, outcome::fail) << what;
}

TEST(IndexerMutants, HeadSumOrderIsCaughtByP2) {
  const auto bad = mutant_of("indexer.r2.ls32.flat", &reversed_heads);
  expect_p2_fails(bad, "head sum reversed");
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto d = H::make(8, 16, 200, 50, 2, false, seed);
    d.n_visible = {200, 150};
    EXPECT_TRUE(equals_replay(registry::find<ops::indexer::op>("indexer.r2.ls32.flat"), d, {0, 1}));
    caught += !equals_replay(bad, d, {0, 1});
  }
  std::printf("mutation indexer (head sum reversed): caught %d of 10\n", caught);
  EXPECT_GE(caught, 9);
}

TEST(IndexerMutants, DotLaneSplitIsCaughtByP2) {
  const auto bad = mutant_of("indexer.r1.ls32.hier", &ops::run_cpu<ops::indexer::kernel<1, blocked_dot_order, selector::hierarchical>>);
  expect_p2_fails(bad, "q.key lane split");
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto d = H::make(4, 128, 300, 40, 1, false, seed);
    d.n_visible = {300};
    EXPECT_TRUE(equals_replay(registry::find<ops::indexer::op>("indexer.r1.ls32.hier"), d, {0}));
    caught += !equals_replay(bad, d, {0});
  }
  std::printf("mutation indexer (q.key lane split): caught %d of 10\n", caught);
  EXPECT_GE(caught, 9);
}

TEST(IndexerMutants, TiesToHighestIdIsCaughtByP2) {
  const auto bad = mutant_of("indexer.r1.ls32.flat", &ties_to_highest_id);
  // The tie rule shows only where a group of equal scores straddles the top-k threshold, about
  // one drawn case in eleven: in 40 cases (the test presets') P2 missed the mutant in 2 runs of 100
  // (session 20, one of them a fresh-clone CI run, seed 873885946851431948). 200 cases miss it
  // about once in 3·10^8 runs, and cost time only where it is missed.
  params prm = mutant_params();
  prm.cases = std::max(prm.cases, 200);
  expect_p2_fails(bad, "ties to highest id", prm);
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto d = H::make(2, 8, 600, 100, 1, true, seed);
    // Keys from 4 distinct rows: scores tie in large groups, across the threshold too.
    for (int r = 4; r < d.n_keys; ++r) std::copy_n(d.keys.begin() + (r % 4) * 8, 8, d.keys.begin() + r * 8);
    d.n_visible = {600};
    EXPECT_TRUE(equals_replay(registry::find<ops::indexer::op>("indexer.r1.ls32.flat"), d, {0}));
    caught += !equals_replay(bad, d, {0});
  }
  std::printf("mutation indexer (ties to highest id): caught %d of 10\n", caught);
  EXPECT_GE(caught, 9);
}

TEST(IndexerMutants, UnmutatedControlsPassP2) {
  for (const char* name : {"indexer.r2.ls32.flat", "indexer.r1.ls32.hier", "indexer.r1.ls32.flat"})
    EXPECT_EQ(drivers<ops::indexer::op>::p2(cpu_backend(), registry::find<ops::indexer::op>(name), mutant_params()).status,
              outcome::pass)
        << name;
}

}  // namespace
