// Kept mutation checks of router's two reductions, each put into a copy of the real registry
// entry: the top-k with ties to the highest id, and the weight sum in reverse order. The default
// driver run must report each through P2; the tie mutant must fail P2 on every tie case, and the
// sum mutant on exactly the cases where the reversed order changes a bit (the replay decides which).
#include <cstdio>

#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using router_entry = registry::entry<ops::router::op>;
using H = harness<ops::router::op>;
using ops::router::score;

/// The selection again with ">=": among equal keys the last (highest) id wins (MUTATION).
void ties_to_highest_id(const ops::router::problem& p) {
  registry::find<ops::router::op>("router.r4.topk").run_cpu(p);
  for (int i = 0; i < p.rows; ++i) {
    std::vector<bool> taken(std::size_t(p.n_expert), false);
    for (int k = 0; k < p.n_used; ++k) {
      int best = -1;
      for (int x = 0; x < p.n_expert; ++x)
        if (!taken[std::size_t(x)] && (best < 0 || ops::router::selection_key(p, i, x) >= ops::router::selection_key(p, i, best)))
          best = x;
      taken[std::size_t(best)] = true;
      p.experts[std::size_t(i) * p.out_stride + std::size_t(k)] = best;
    }
    ops::router::write_weights(p, i);
  }
}

/// The weights with the selected scores summed last to first (MUTATION).
void reversed_weight_sum(const ops::router::problem& p) {
  registry::find<ops::router::op>("router.r1.topk").run_cpu(p);
  for (int i = 0; i < p.rows; ++i) {
    const std::int32_t* ex = p.experts + std::size_t(i) * p.out_stride;
    const float* logits = p.logits + std::size_t(i) * p.logit_stride;
    float sum = score(logits[ex[p.n_used - 1]]);
    for (int k = p.n_used - 2; k >= 0; --k) sum = sum + score(logits[ex[k]]);
    sum = sum < p.sum_floor ? p.sum_floor : sum;
    for (int k = 0; k < p.n_used; ++k) p.weights[std::size_t(i) * p.out_stride + std::size_t(k)] = score(logits[ex[k]]) / sum * p.scale;
  }
}

router_entry mutant_of(const char* name, void (*run)(const ops::router::problem&)) {
  router_entry e = registry::find<ops::router::op>(name);
  e.run_cpu = run;
  return e;
}

bool equals_replay(const router_entry& e, const H::data& d, const std::vector<int>& ids) {
  const auto got = H::run(cpu_backend(), e, d, ids, H::tight_layout());
  for (std::size_t s = 0; s < ids.size(); ++s)
    if (!same_bits(got.rows[s], H::replay(e, d, ids[s]))) return false;
  return true;
}

TEST(RouterMutants, TiesToHighestIdIsCaughtByP2) {
  const auto bad = mutant_of("router.r4.topk", &ties_to_highest_id);
  const auto r = check_spec(cpu_backend(), bad, mutant_params(), property_set::cpu);
  std::printf("mutant %s\n", r.line().c_str());
  EXPECT_EQ(r.status_of("P2"), outcome::fail);
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto d = H::make(256, 6, 4, false, true, seed);
    EXPECT_TRUE(equals_replay(registry::find<ops::router::op>("router.r4.topk"), d, {0, 1, 2, 3}));
    EXPECT_FALSE(equals_replay(bad, d, {0, 1, 2, 3})) << "seed " << seed;
  }
}

TEST(RouterMutants, ReversedWeightSumIsCaughtByP2) {
  const auto bad = mutant_of("router.r1.topk", &reversed_weight_sum);
  const auto r = check_spec(cpu_backend(), bad, mutant_params(), property_set::cpu);
  std::printf("mutant %s\n", r.line().c_str());
  EXPECT_EQ(r.status_of("P2"), outcome::fail);
  const auto& good = registry::find<ops::router::op>("router.r1.topk");
  int observable = 0, caught = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const auto d = H::make(256, 6, 1, true, false, seed);
    const auto want = H::replay(good, d, 0);
    std::int32_t ex[6];
    std::memcpy(ex, want.data(), sizeof ex);
    float p[6];
    for (int k = 0; k < 6; ++k) p[k] = ops::router::replay::p_of(d.pool[0][std::size_t(ex[k])]);
    float forward = p[0], backward = p[5];
    for (int k = 1; k < 6; ++k) forward = forward + p[k];
    for (int k = 4; k >= 0; --k) backward = backward + p[k];
    const bool differs = forward != backward;
    const bool flagged = !equals_replay(bad, d, {0});
    observable += differs;
    caught += differs && flagged;
    EXPECT_EQ(flagged, differs) << "seed " << seed;
  }
  std::printf("mutation router: reversed sum changes bits on %d of 100 rows, P2 caught %d\n", observable, caught);
  EXPECT_GE(observable, 10);
  EXPECT_EQ(caught, observable);
}

TEST(RouterMutants, UnmutatedControlsPass) {
  for (const char* name : {"router.r4.topk", "router.r1.topk"})
    EXPECT_TRUE(check_spec(cpu_backend(), registry::find<ops::router::op>(name), mutant_params(), property_set::cpu).passed()) << name;
}

}  // namespace
