// Properties P1–P4 of DESIGN §7 over every router spec, on the CPU executor, and the mutation
// checks of its two reductions: the top-k (ties must go to the lowest id) and the weight sum (in
// output order). The top-k is exact in any combine order, so P5 here is the tie rule and the sum
// order being visible in bits, shown by the mutants.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "family_properties.hpp"
#include "router_harness.hpp"

namespace {

using namespace ordo::test;
using namespace ordo::test::router;
using ordo::ops::router::cpu_entries;
using ordo::ops::router::find_entry;

/// DS4's 256 experts, 6 used, on most cases; odd counts otherwise.
router_case gen_case(int pool) {
  const bool ds4 = *rc::gen::inRange(0, 3) > 0;
  const int n_expert = ds4 ? 256 : *rc::gen::inRange(8, 300);
  const int n_used = ds4 ? 6 : *rc::gen::inRange(1, 9);
  return make_case(n_expert, n_used, pool, *rc::gen::arbitrary<bool>(), *rc::gen::arbitrary<bool>(),
                   *rc::gen::arbitrary<std::uint64_t>());
}

bool same_row(const result& a, std::size_t sa, const result& b, std::size_t sb) {
  return a.experts[sa] == b.experts[sb] && same_bits(a.weights[sa], b.weights[sb]);
}

bool row_order_equivalent(const cpu_entry& e, const router_case& c, const std::vector<int>& ids) {
  const auto many = run(e, c, ids);
  for (std::size_t s = 0; s < ids.size(); ++s)
    if (!same_row(many, s, run(find_entry(1, e.chooses), c, {ids[s]}), 0)) return false;
  return true;
}

/// Whether every slot equals the independent replay.
bool equals_replay(const cpu_entry& e, const router_case& c, const std::vector<int>& ids, const runner& exec = run_entry) {
  const auto got = run(e, c, ids, {}, exec);
  for (std::size_t s = 0; s < ids.size(); ++s) {
    const auto want = replay_row(e, c, ids[s]);
    if (got.experts[s] != want.experts || !same_bits(got.weights[s], want.weights)) return false;
  }
  return true;
}

TEST(RouterProperties, SpaceHasEveryTierAndSelection) { EXPECT_EQ(cpu_entries().size(), 9u * 2u); }

TEST(RouterProperties, P1RowOrderEquivalence) {
  check_every_spec(cpu_entries(), "P1", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    RC_ASSERT(row_order_equivalent(e, gen_case(n), first_rows(n)));
  });
}

TEST(RouterProperties, P2EqualsIndependentReplay) {
  check_every_spec(cpu_entries(), "P2", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    RC_ASSERT(equals_replay(e, gen_case(n), first_rows(n)));
  });
}

TEST(RouterProperties, P3SlotAndPermutationInvariance) {
  check_every_spec(cpu_entries(), "P3", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n + 2);
    const auto slots = gen_permutation(n);
    const auto a = run(e, c, slots.first), b = run(e, c, slots.second);
    for (int s = 0; s < n; ++s) {
      const auto at = slots.slot_in_second(std::size_t(s));
      RC_ASSERT(same_row(a, std::size_t(s), b, at));
    }
  });
}

TEST(RouterProperties, P4PaddingAndUnusedRowsNeverLeak) {
  check_every_spec(cpu_entries(), "P4", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n);
    const layout padded{std::size_t(*rc::gen::inRange(1, 40)), std::size_t(*rc::gen::inRange(0, 9))};
    const auto a = run(e, c, first_rows(n), padded), b = run(e, c, first_rows(n));
    RC_ASSERT(a.padding_intact);
    RC_ASSERT(b.padding_intact);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_row(a, std::size_t(s), b, std::size_t(s)));
  });
}

// The tie rule on a row built to tie: every logit equal, so the experts are 0..n_used-1.
TEST(RouterProperties, AllEqualScoresPickTheLowestIds) {
  auto c = make_case(256, 6, 1, false, false, 3);
  std::fill(c.pool[0].begin(), c.pool[0].end(), 0.75f);
  const auto r = run(find_entry(1, selection::top_k), c, {0});
  EXPECT_EQ(r.experts[0], (std::vector<std::int32_t>{0, 1, 2, 3, 4, 5}));
}

// Mutation check of the top-k: a runner whose ties go to the highest id must fail P2 on tie cases.
TEST(RouterProperties, MutationTiesToHighestIdIsCaughtByP2) {
  const runner mutant = [](const cpu_entry& e, const problem& p) {
    e.run(p);
    for (int i = 0; i < p.rows; ++i) {
      // The selection again, with ">=": among equal keys the last (highest) id wins.
      std::vector<bool> taken(std::size_t(p.n_expert), false);
      for (int k = 0; k < p.n_used; ++k) {
        int best = -1;
        for (int x = 0; x < p.n_expert; ++x)
          if (!taken[std::size_t(x)] &&
              (best < 0 || ordo::ops::router::selection_key(p, i, x) >= ordo::ops::router::selection_key(p, i, best)))
            best = x;
        taken[std::size_t(best)] = true;
        p.experts[std::size_t(i) * p.out_stride + std::size_t(k)] = best;
      }
      ordo::ops::router::write_weights(p, i);
    }
  };
  const auto& e = find_entry(4, selection::top_k);
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(256, 6, 4, false, true, seed);
    EXPECT_TRUE(equals_replay(e, c, {0, 1, 2, 3}));
    EXPECT_FALSE(equals_replay(e, c, {0, 1, 2, 3}, mutant)) << "seed " << seed;
  }
}

// Mutation check of the weight sum: a runner that sums the selected scores in reverse order must
// fail P2 on every case where that order changes a bit (the replay decides which), and such cases
// must be common.
TEST(RouterProperties, MutationReversedWeightSumIsCaughtByP2) {
  using ordo::ops::router::score;
  const runner mutant = [](const cpu_entry& e, const problem& p) {
    e.run(p);
    for (int i = 0; i < p.rows; ++i) {
      const std::int32_t* ex = p.experts + std::size_t(i) * p.out_stride;
      const float* logits = p.logits + std::size_t(i) * p.logit_stride;
      float sum = score(logits[ex[p.n_used - 1]]);
      for (int k = p.n_used - 2; k >= 0; --k) sum = sum + score(logits[ex[k]]);
      sum = sum < p.sum_floor ? p.sum_floor : sum;
      for (int k = 0; k < p.n_used; ++k) p.weights[std::size_t(i) * p.out_stride + std::size_t(k)] = score(logits[ex[k]]) / sum * p.scale;
    }
  };
  const auto& e = find_entry(1, selection::top_k);
  int observable = 0, caught = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const auto c = make_case(256, 6, 1, true, false, seed);
    const auto want = replay_row(e, c, 0);
    float p[6];
    for (int k = 0; k < 6; ++k) p[k] = ordo::ops::router::replay::p_of(c.pool[0][std::size_t(want.experts[std::size_t(k)])]);
    float forward = p[0], backward = p[5];
    for (int k = 1; k < 6; ++k) forward = forward + p[k];
    for (int k = 4; k >= 0; --k) backward = backward + p[k];
    const bool differs = forward != backward;
    const bool flagged = !equals_replay(e, c, {0}, mutant);
    observable += differs;
    caught += differs && flagged;
    EXPECT_EQ(flagged, differs) << "seed " << seed;
  }
  std::printf("mutation router: reversed sum changes bits on %d of 100 rows, P2 caught %d\n", observable, caught);
  EXPECT_GE(observable, 10);
  EXPECT_EQ(caught, observable);
}

}  // namespace
