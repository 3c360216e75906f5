// Properties P1–P4 of DESIGN §7 over every indexer spec, on the CPU executor: scores and the
// selection; the hierarchical selector equal to the flat one; exact ties (lowest id); and the
// mutation checks of its reductions: the head sum order and the q·key lane split (scores, P2),
// and the tie rule (selection, P2).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstdio>

#include "family_properties.hpp"
#include "indexer_harness.hpp"

namespace {

using namespace ordo::test;
using namespace ordo::test::indexer;
using ordo::ops::indexer::cpu_entries;
using ordo::ops::indexer::find_entry;

/// Small heads (DS4's 128-wide on a quarter), up to ~1.6 blocks of keys so the hierarchical
/// selector meets two blocks, k from 1 to past the visible count; ties on half the cases.
idx_case gen_case(int pool) {
  const bool wide = *rc::gen::inRange(0, 4) == 0;
  const int head_dim = wide ? 128 : 1 << *rc::gen::inRange(0, 6);
  const int n_heads = *rc::gen::inRange(1, wide ? 3 : 6);
  const int n_keys = *rc::gen::inRange(0, 1700);
  const int top_k = *rc::gen::oneOf(rc::gen::just(512), rc::gen::inRange(1, 700));
  return make_case(n_heads, head_dim, n_keys, top_k, pool, *rc::gen::arbitrary<bool>(), *rc::gen::arbitrary<std::uint64_t>());
}

bool same_row(const result& a, std::size_t sa, const result& b, std::size_t sb) {
  return same_bits(a.scores[sa], b.scores[sb]) && a.selected[sa] == b.selected[sb];
}

bool equals_replay(const cpu_entry& e, const idx_case& c, const std::vector<int>& ids, const runner& exec = run_entry) {
  const auto got = run(e, c, ids, {}, exec);
  if (!got.padding_intact) return false;
  for (std::size_t s = 0; s < ids.size(); ++s) {
    const auto want = replay_row(c, ids[s]);
    if (!same_bits(got.scores[s], want.scores) || got.selected[s] != want.selected) return false;
  }
  return true;
}

TEST(IndexerProperties, SpaceHasEveryTierAndSelector) { EXPECT_EQ(cpu_entries().size(), 9u * 2u); }

TEST(IndexerProperties, P1RowOrderEquivalence) {
  check_every_spec(cpu_entries(), "P1", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n);
    const auto many = run(e, c, first_rows(n));
    RC_ASSERT(many.padding_intact);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_row(many, std::size_t(s), run(find_entry(1, e.selects), c, {s}), 0));
  });
}

TEST(IndexerProperties, P2EqualsIndependentReplay) {
  check_every_spec(cpu_entries(), "P2", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    RC_ASSERT(equals_replay(e, gen_case(n), first_rows(n)));
  });
}

TEST(IndexerProperties, P3SlotAndPermutationInvariance) {
  check_every_spec(cpu_entries(), "P3", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n + 2);
    const auto slots = gen_permutation(n);
    const auto a = run(e, c, slots.first), b = run(e, c, slots.second);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_row(a, std::size_t(s), b, slots.slot_in_second(std::size_t(s))));
  });
}

TEST(IndexerProperties, P4PaddingAndUnusedRowsNeverLeak) {
  check_every_spec(cpu_entries(), "P4", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n);
    const layout padded{std::size_t(*rc::gen::inRange(1, 20)), std::size_t(*rc::gen::inRange(1, 20)),
                        std::size_t(*rc::gen::inRange(1, 20)), std::size_t(*rc::gen::inRange(1, 20)),
                        std::size_t(*rc::gen::inRange(1, 20)), *rc::gen::inRange(1, 1200)};
    const auto a = run(e, c, first_rows(n), padded), b = run(e, c, first_rows(n));
    RC_ASSERT(a.padding_intact);
    RC_ASSERT(b.padding_intact);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_row(a, std::size_t(s), b, std::size_t(s)));
  });
}

// The hierarchical selector is the flat selection, on DS4's top-512 over 3000 keys (3 blocks).
TEST(IndexerProperties, HierarchicalEqualsFlatAtDs4TopK) {
  for (const bool ties : {false, true}) {
    const auto c = make_case(4, 128, 3000, 512, 2, ties, 77 + ties);
    auto full = c;
    full.n_visible = {3000, 2100};
    const auto a = run(find_entry(2, selector::flat), full, {0, 1}), b = run(find_entry(2, selector::hierarchical), full, {0, 1});
    ASSERT_TRUE(a.padding_intact && b.padding_intact);
    for (std::size_t s = 0; s < 2; ++s) {
      EXPECT_EQ(a.selected[s].size(), 512u);
      EXPECT_EQ(a.selected[s], b.selected[s]) << "ties " << ties;
      EXPECT_EQ(a.selected[s], replay_row(full, int(s)).selected);
    }
  }
}

// Exact ties: every key row equal, so every score is equal and the lowest ids win.
TEST(IndexerProperties, AllEqualScoresPickTheLowestIds) {
  auto c = make_case(3, 32, 1500, 512, 1, false, 5);
  for (int r = 1; r < c.n_keys; ++r) std::copy(c.keys.begin(), c.keys.begin() + 32, c.keys.begin() + r * 32);
  c.n_visible = {1500};
  std::vector<std::int32_t> want(512);
  for (int j = 0; j < 512; ++j) want[std::size_t(j)] = j;
  for (const auto s : {selector::flat, selector::hierarchical}) EXPECT_EQ(run(find_entry(1, s), c, {0}).selected[0], want);
}

/// A mutant: the real executor on the heads in reverse order (q's heads and the weights
/// reversed together), so each score sums the same terms from the last head down.
void reversed_heads(const cpu_entry& e, const problem& p) {
  const std::size_t hd = std::size_t(p.head_dim), nh = std::size_t(p.n_heads);
  std::vector<float> q(p.q, p.q + std::size_t(p.rows) * p.q_stride), w(p.head_weights, p.head_weights + std::size_t(p.rows) * p.w_stride);
  for (int i = 0; i < p.rows; ++i)
    for (std::size_t h = 0; h < nh; ++h) {
      std::copy_n(p.q + std::size_t(i) * p.q_stride + (nh - 1 - h) * hd, hd, q.begin() + std::ptrdiff_t(std::size_t(i) * p.q_stride + h * hd));
      w[std::size_t(i) * p.w_stride + h] = p.head_weights[std::size_t(i) * p.w_stride + nh - 1 - h];
    }
  problem m = p;
  m.q = q.data(), m.head_weights = w.data();
  e.run(m);
}

TEST(IndexerProperties, MutationHeadSumOrderIsCaughtByP2) {
  const auto& e = find_entry(2, selector::flat);
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto c = make_case(8, 16, 200, 50, 2, false, seed);
    c.n_visible = {200, 150};
    EXPECT_TRUE(equals_replay(e, c, {0, 1}));
    caught += !equals_replay(e, c, {0, 1}, reversed_heads);
  }
  std::printf("mutation indexer (head sum reversed): P2 caught %d of 10\n", caught);
  EXPECT_GE(caught, 9);
}

struct blocked_dot_order {
  using dot_order = ordo::order::lane_blocked;
  static constexpr std::string_view name = "mutant";
};

TEST(IndexerProperties, MutationDotLaneSplitIsCaughtByP2) {
  const auto& e = find_entry(1, selector::hierarchical);
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto c = make_case(4, 128, 300, 40, 1, false, seed);
    c.n_visible = {300};
    EXPECT_TRUE(equals_replay(e, c, {0}));
    caught += !equals_replay(e, c, {0}, [](const cpu_entry&, const problem& p) {
      ordo::ops::indexer::run_rows<blocked_dot_order, selector::hierarchical>(p);
    });
  }
  std::printf("mutation indexer (q.key lane split): P2 caught %d of 10\n", caught);
  EXPECT_GE(caught, 9);
}

// The tie rule at the entry level: the key table reversed (ids mapped back) sends ties to the
// highest id; P2 must flag it exactly where the reversed rule selects other ids.
TEST(IndexerProperties, MutationTiesToHighestIdIsCaughtByP2) {
  const auto& e = find_entry(1, selector::flat);
  const runner mutant = [](const cpu_entry& entry, const problem& p) {
    const int n = p.n_visible[0];
    std::vector<float> keys(p.keys, p.keys + std::size_t(p.n_keys) * p.key_stride);
    for (int r = 0; r < n; ++r)
      std::copy_n(p.keys + std::size_t(n - 1 - r) * p.key_stride, p.key_stride, keys.begin() + std::ptrdiff_t(std::size_t(r) * p.key_stride));
    problem m = p;
    m.keys = keys.data();
    entry.run(m);
    std::vector<float> scores(p.scores, p.scores + n);
    for (int c = 0; c < n; ++c) p.scores[c] = scores[std::size_t(n - 1 - c)];
    std::int32_t* sel = p.selected;
    for (int j = 0; j < p.n_selected[0]; ++j) sel[j] = n - 1 - sel[j];
    std::sort(sel, sel + p.n_selected[0]);
  };
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto c = make_case(2, 8, 600, 100, 1, true, seed);
    // Keys from 4 distinct rows: scores tie in large groups, across the threshold too.
    for (int r = 4; r < c.n_keys; ++r) std::copy_n(c.keys.begin() + (r % 4) * 8, 8, c.keys.begin() + r * 8);
    c.n_visible = {600};
    EXPECT_TRUE(equals_replay(e, c, {0}));
    caught += !equals_replay(e, c, {0}, mutant);
  }
  std::printf("mutation indexer (ties to highest id): P2 caught %d of 10\n", caught);
  EXPECT_GE(caught, 9);
}

}  // namespace
