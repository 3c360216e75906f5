// Properties P1–P5 of DESIGN §7 over every hc spec (tests mirror include/ordo/ops/hc), on the CPU
// executor, plus one kept mutation check per reduction kind: the flat reductions (one row in
// another order, caught by P1), the Sinkhorn (19 iterations instead of 20, caught by P2) and post's
// stream sum (b summed in reverse, caught by P2). Each spec gets its own rapidcheck run.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "family_properties.hpp"
#include "hc_harness.hpp"

namespace {

using namespace ordo::test;
using namespace ordo::test::hc;
using ordo::ops::hc::cpu_entries;
using ordo::ops::hc::find_entry;

/// The DS4 width (n_embd 4096: a 16384-wide flat state) on a quarter of the cases, odd widths
/// (flat lengths that are not multiples of 32, shorter than 32 lanes, …) on the rest.
hc_case gen_case(int pool) {
  const int n_embd = *rc::gen::oneOf(rc::gen::just(4096), rc::gen::inRange(1, 300), rc::gen::inRange(1, 300),
                                     rc::gen::inRange(300, 1100));
  return make_case(n_embd, pool, *rc::gen::arbitrary<std::uint64_t>());
}

const cpu_entry& one_row_twin(const cpu_entry& e) { return find_entry(1, e.order, e.part); }

/// P1 for one case: every slot of an n-row run equals the same pool row run alone at tier 1.
bool row_order_equivalent(const cpu_entry& e, const hc_case& c, const std::vector<int>& ids,
                          const runner& exec = run_entry) {
  const auto many = run(e, c, ids, {}, exec);
  for (std::size_t s = 0; s < ids.size(); ++s)
    if (!same_slot(many, s, run(one_row_twin(e), c, {ids[s]}), 0)) return false;
  return true;
}

/// P2 for one case: every slot equals the independent replay of its pool row.
bool equals_replay(const cpu_entry& e, const hc_case& c, const std::vector<int>& ids, const runner& exec = run_entry) {
  const auto got = run(e, c, ids, {}, exec);
  for (std::size_t s = 0; s < ids.size(); ++s)
    if (!same_slot(got, s, replay_row(e, c, ids[s]), 0)) return false;
  return true;
}

TEST(HcProperties, SpaceHasEveryTierOrderAndStage) {
  EXPECT_EQ(cpu_entries().size(), 9u * 2u * 2u + 9u);
  EXPECT_EQ(cpu_entries().front().name, "hc.r1.ls32.pre");
  EXPECT_EQ(cpu_entries().back().name, "hc.r16.post");
}

TEST(HcProperties, P1RowOrderEquivalence) {
  check_every_spec(cpu_entries(), "P1", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    RC_ASSERT(row_order_equivalent(e, gen_case(n), first_rows(n)));
  });
}

TEST(HcProperties, P2EqualsIndependentReplay) {
  check_every_spec(cpu_entries(), "P2", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    RC_ASSERT(equals_replay(e, gen_case(n), first_rows(n)));
  });
}

TEST(HcProperties, P3SlotAndPermutationInvariance) {
  check_every_spec(cpu_entries(), "P3", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n + 2);
    const auto slots = gen_permutation(n);
    const auto a = run(e, c, slots.first), b = run(e, c, slots.second);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_slot(a, std::size_t(s), b, slots.slot_in_second(std::size_t(s))));
  });
}

TEST(HcProperties, P4PaddingAndUnusedRowsNeverLeak) {
  check_every_spec(cpu_entries(), "P4", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n);
    const auto ids = first_rows(n);
    layout padded;
    padded.h_pad = std::size_t(*rc::gen::inRange(1, 40));
    padded.x_pad = std::size_t(*rc::gen::inRange(0, 9));
    padded.split_pad = std::size_t(*rc::gen::inRange(0, 9));
    padded.f_pad = std::size_t(*rc::gen::inRange(1, 9));
    padded.h_new_pad = std::size_t(*rc::gen::inRange(0, 9));
    const auto poisoned = run(e, c, ids, padded);
    RC_ASSERT(poisoned.padding_intact);
    layout clean;
    clean.poison_unused_rows = false;
    const auto tight = run(e, c, ids, clean);
    RC_ASSERT(tight.padding_intact);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_slot(poisoned, std::size_t(s), tight, std::size_t(s)));
  });
}

// post may write the new state over the old one (the runtime does): the bits are the same.
TEST(HcProperties, PostInPlaceEqualsOutOfPlace) {
  const auto& e = find_entry(4, "", stage::post);
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(4096, 4, seed);
    const auto want = run(e, c, {0, 1, 2, 3});
    std::vector<float> h, f, split;
    for (int i = 0; i < 4; ++i) {
      h.insert(h.end(), c.states[std::size_t(i)].begin(), c.states[std::size_t(i)].end());
      f.insert(f.end(), c.f[std::size_t(i)].begin(), c.f[std::size_t(i)].end());
      split.insert(split.end(), c.splits[std::size_t(i)].begin(), c.splits[std::size_t(i)].end());
    }
    const std::size_t flat = std::size_t(c.flat());
    const problem p{h.data(), flat, nullptr, nullptr, nullptr, nullptr, 0, split.data(), n_pre_mix,
                    f.data(), 4096, h.data(), flat, 4096, 4, 1e-6f, eps};
    e.run(p);
    for (std::size_t i = 0; i < 4; ++i) ASSERT_TRUE(same_bits(h.data() + i * flat, want.h_new[i].data(), flat)) << seed;
  }
}

// P5: the two orders are not interchangeable on these inputs; otherwise P1–P4 could pass on data
// where every order gives the same bits. Measured: ls32 and lb32 give different x_sub on nearly
// every row at DS4 width (the 24 mix dot products are signed sums of 16384 terms); this asserts
// at least half.
TEST(HcProperties, P5DifferentOrderChangesBits) {
  const auto& a = find_entry(1, "ls32", stage::pre);
  const auto& b = find_entry(1, "lb32", stage::pre);
  int differing = 0, total = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const auto c = make_case(4096, 1, seed);
    differing += !same_slot(run(a, c, {0}), 0, run(b, c, {0}), 0);
    ++total;
  }
  std::printf("P5 hc: ls32 vs lb32 differ on %d of %d pre rows at n_embd 4096\n", differing, total);
  EXPECT_GE(double(differing) / total, 0.5);
}

/// Re-runs row 1 of p alone through `other` (what a K-row kernel that treated one row differently
/// would do).
void rerun_row_1(const cpu_entry& other, const problem& p) {
  if (p.rows < 2) return;
  auto q = p;
  q.h += p.h_stride;
  q.x += p.x_stride;
  q.split += p.split_stride;
  q.f += p.f_stride;
  q.h_new += p.h_new_stride;
  q.rows = 1;
  other.run(q);
}

// Mutation check of the flat reductions (Σx² and the mixes): row 1 reduced in lb32 must fail P1 on
// every case where that changes row 1's bits (the independent replay says which), and such cases
// must exist.
TEST(HcProperties, MutationBreakingOneRowsOrderIsCaughtByP1) {
  const auto& good = find_entry(4, "ls32", stage::pre);
  const auto& other_order = find_entry(1, "lb32", stage::pre);
  const runner mutant = [&](const cpu_entry& e, const problem& p) {
    e.run(p);
    rerun_row_1(other_order, p);
  };
  int observable = 0, caught = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const auto c = make_case(4096, 4, seed);
    EXPECT_TRUE(row_order_equivalent(good, c, {0, 1, 2, 3}));
    const bool differs = !same_slot(replay_row(good, c, 1), 0, replay_row(other_order, c, 1), 0);
    const bool flagged = !row_order_equivalent(good, c, {0, 1, 2, 3}, mutant);
    observable += differs;
    caught += differs && flagged;
    EXPECT_EQ(flagged, differs) << "seed " << seed;
  }
  std::printf("mutation hc order: row 1 in lb32 changes bits on %d of 12 cases, P1 caught %d\n", observable, caught);
  EXPECT_GE(observable, 6);
  EXPECT_EQ(caught, observable) << "P1 missed a row reduced in another order";
}

// Mutation check of the Sinkhorn: 19 iterations instead of 20 must fail P2 (the comb entries
// move in their last bits even when the iteration has nearly converged). Asserts P2 flags at least
// 9 of 10 cases.
TEST(HcProperties, MutationSinkhorn19IterationsIsCaughtByP2) {
  const runner mutant = [](const cpu_entry&, const problem& p) {
    ordo::ops::hc::run_cpu<4, ordo::order::lane_strided, stage::pre, ordo::ops::hc::sinkhorn_iters - 1>(p);
  };
  const auto& good = find_entry(4, "ls32", stage::pre);
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(64, 4, seed);
    EXPECT_TRUE(equals_replay(good, c, {0, 1, 2, 3}));
    caught += !equals_replay(good, c, {0, 1, 2, 3}, mutant);
  }
  std::printf("mutation hc sinkhorn: 19 iterations caught by P2 on %d of 10 cases\n", caught);
  EXPECT_GE(caught, 9);
}

// Mutation check of post's stream sum: b summed 3..0 instead of 0..3 must fail P2 on most cases.
TEST(HcProperties, MutationPostSumOrderIsCaughtByP2) {
  const runner mutant = [](const cpu_entry&, const problem& p) {
    const std::size_t n = std::size_t(p.n_embd);
    for (int i = 0; i < p.rows; ++i) {
      const float* h = p.h + std::size_t(i) * p.h_stride;
      const float* s = p.split + std::size_t(i) * p.split_stride;
      const float* f = p.f + std::size_t(i) * p.f_stride;
      float* out = p.h_new + std::size_t(i) * p.h_new_stride;
      for (std::size_t a = 0; a < 4; ++a)
        for (std::size_t j = 0; j < n; ++j) {
          float acc = 0.0f;
          for (std::size_t b = 4; b-- > 0;) acc = fmaf(s[8 + a + 4 * b], h[b * n + j], acc);
          out[a * n + j] = fmaf(s[4 + a], f[j], acc);
        }
    }
  };
  const auto& good = find_entry(4, "", stage::post);
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(256, 4, seed);
    EXPECT_TRUE(equals_replay(good, c, {0, 1, 2, 3}));
    caught += !equals_replay(good, c, {0, 1, 2, 3}, mutant);
  }
  std::printf("mutation hc post: reversed stream sum caught by P2 on %d of 10 cases\n", caught);
  EXPECT_EQ(caught, 10);
}

}  // namespace
