// Properties P1–P4 of DESIGN §7 over every sampling spec (greedy and sample), on the CPU executor,
// and the mutation check of the argmax (ties to the lowest id). There is no P5: argmax is exact in
// any order, and mode sample has one order only (body.hpp). The sampler's own mutation checks
// (draw order, tie rule of the cuts, RNG key) are tests/unit/ops/sampling/sampling_mutant_test.cpp.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "family_properties.hpp"
#include "sampling_harness.hpp"

namespace {

using namespace ordo::test;
using namespace ordo::test::sampling;
using ordo::ops::sampling::cpu_entries;
using ordo::ops::sampling::find_entry;
using ordo::ops::sampling::mode;

/// Greedy: DS4's 129,280 logits on a quarter of the cases, odd vocabulary sizes up to 3000
/// otherwise. Sample: sizes up to 1000, including ones below the 256 chunks (empty chunks), since
/// a row with top-p makes ~50 passes (the 129,280-logit sample rows, P1 included, are
/// tests/unit/ops/sampling/sampling_sample_test.cpp). Mode sample also draws its settings and each
/// row's position.
sampling_case gen_case(int pool, mode m) {
  const bool full = m == mode::greedy && *rc::gen::inRange(0, 4) == 0;
  const int n_vocab = full ? 129280 : *rc::gen::inRange(1, m == mode::greedy ? 3000 : 1000);
  return make_case(n_vocab, pool, *rc::gen::arbitrary<std::uint64_t>(), m);
}

bool equals_replay(const cpu_entry& e, const sampling_case& c, const std::vector<int>& ids, const runner& exec = run_entry) {
  const auto got = run(e, c, ids, 0, exec);
  for (std::size_t s = 0; s < ids.size(); ++s)
    if (got.tokens[s] != replay_token(e.picks, c, ids[s])) return false;
  return true;
}

TEST(SamplingProperties, SpaceHasEveryTierAndMode) {
  EXPECT_EQ(cpu_entries().size(), 18u);
  EXPECT_EQ(find_entry(16, mode::sample).name, "sampling.r16.sample");
}

TEST(SamplingProperties, P1RowOrderEquivalence) {
  check_every_spec(cpu_entries(), "P1", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n, e.picks);
    const auto many = run(e, c, first_rows(n));
    for (int s = 0; s < n; ++s) RC_ASSERT(many.tokens[std::size_t(s)] == run(find_entry(1, e.picks), c, {s}).tokens[0]);
  });
}

TEST(SamplingProperties, P2EqualsIndependentReplay) {
  check_every_spec(cpu_entries(), "P2", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    RC_ASSERT(equals_replay(e, gen_case(n, e.picks), first_rows(n)));
  });
}

TEST(SamplingProperties, P3SlotAndPermutationInvariance) {
  check_every_spec(cpu_entries(), "P3", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n + 2, e.picks);
    const auto slots = gen_permutation(n);
    const auto a = run(e, c, slots.first), b = run(e, c, slots.second);
    for (int s = 0; s < n; ++s) {
      const auto at = slots.slot_in_second(std::size_t(s));
      RC_ASSERT(a.tokens[std::size_t(s)] == b.tokens[at]);
    }
  });
}

TEST(SamplingProperties, P4PaddingAndUnusedRowsNeverLeak) {
  check_every_spec(cpu_entries(), "P4", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n, e.picks);
    const auto a = run(e, c, first_rows(n), std::size_t(*rc::gen::inRange(1, 64)));  // +inf padding would win if read
    const auto b = run(e, c, first_rows(n));
    RC_ASSERT(a.padding_intact);
    RC_ASSERT(b.padding_intact);
    RC_ASSERT(a.tokens == b.tokens);
  });
}

TEST(SamplingProperties, TiesGoToTheLowestIdAndNanNeverWins) {
  std::vector<float> z(129280, -1.0f);
  z[77] = z[5000] = z[129279] = 3.0f;
  z[0] = std::numeric_limits<float>::quiet_NaN();
  sampling_case c{129280, {z}};
  std::fill(z.begin(), z.end(), std::numeric_limits<float>::quiet_NaN());
  c.pool.push_back(z);
  const auto r = run(find_entry(2, mode::greedy), c, {0, 1});
  EXPECT_EQ(r.tokens[0], 77);
  EXPECT_EQ(r.tokens[1], 0) << "an all-NaN row gives id 0";
}

// Mutation check of the argmax: a runner whose ties go to the highest id (a ">=" scan, or a
// combine tree that prefers the right operand) must fail P2 on every row with a planted tie.
TEST(SamplingProperties, MutationTiesToHighestIdIsCaughtByP2) {
  const runner mutant = [](const cpu_entry&, const problem& p) {
    for (int i = 0; i < p.rows; ++i) {
      const float* z = p.logits + std::size_t(i) * p.logit_stride;
      int best = 0;
      for (int v = 1; v < p.n_vocab; ++v)
        if (!std::isnan(z[v]) && (std::isnan(z[best]) || z[v] >= z[best])) best = v;
      p.tokens[i] = best;
    }
  };
  const auto& e = find_entry(4, mode::greedy);
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    ordo::quant::splitmix64 rng{seed};
    sampling_case c{129280, {}};
    for (int i = 0; i < 4; ++i) c.pool.push_back(make_row(c.n_vocab, row_kind::planted_ties, rng));
    EXPECT_TRUE(equals_replay(e, c, {0, 1, 2, 3}));
    EXPECT_FALSE(equals_replay(e, c, {0, 1, 2, 3}, mutant)) << "seed " << seed;
  }
}

}  // namespace
