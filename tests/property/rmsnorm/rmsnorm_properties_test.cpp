// Properties P1–P5 of DESIGN §7 over every rmsnorm spec (tests mirror include/ordo/ops/rmsnorm),
// on the CPU executor, plus the mutation check that shows P1 has teeth. Each spec gets its own
// rapidcheck run (RC_PARAMS from the test preset); a failure prints the spec and the seed.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "family_properties.hpp"
#include "rmsnorm_harness.hpp"

namespace {

using namespace ordo::test;
using namespace ordo::test::rmsnorm;
using ordo::ops::rmsnorm::cpu_entries;
using ordo::ops::rmsnorm::find_entry;

/// DS4 shapes (whole rows of 4096, 1024, 512; 64 heads of 512; the 16384-wide HC flat state) mixed
/// with odd ones. The q8 epilogue needs heads of whole 32-blocks.
rms_case gen_case(const cpu_entry& e, int pool) {
  const bool q8 = e.writes == epilogue::q8_32;
  const int shape = *rc::gen::inRange(0, 6);
  int heads = 1, dim = 0;
  if (shape == 0) dim = *rc::gen::element(4096, 1024, 512, 16384);
  else if (shape == 1) heads = 64, dim = 512;
  else if (shape == 2) heads = *rc::gen::inRange(2, 5), dim = 32 * *rc::gen::inRange(1, 20);
  else dim = q8 ? 32 * *rc::gen::inRange(1, 40) : *rc::gen::inRange(1, 1200);
  return make_case(heads, dim, pool, *rc::gen::arbitrary<std::uint64_t>());
}

const cpu_entry& one_row_twin(const cpu_entry& e) { return find_entry(1, e.order, e.weights, e.writes); }

/// P1 for one case: every slot of an n-row run equals the same pool row run alone at tier 1.
bool row_order_equivalent(const cpu_entry& e, const rms_case& c, const std::vector<int>& ids,
                          const runner& exec = run_entry) {
  const auto many = run(e, c, ids, {}, exec);
  for (std::size_t s = 0; s < ids.size(); ++s) {
    const auto alone = run(one_row_twin(e), c, {ids[s]});
    if (!same_bits(many.y[s], alone.y[0])) return false;
    if (e.writes == epilogue::q8_32 && many.q8[s] != alone.q8[0]) return false;
  }
  return true;
}

TEST(RmsnormProperties, SpaceHasEveryTierOrderAndOption) {
  EXPECT_EQ(cpu_entries().size(), 9u * 2u * 2u * 2u);
  EXPECT_EQ(cpu_entries().front().name, "rmsnorm.r1.ls32.weighted.f32");
}

TEST(RmsnormProperties, P1RowOrderEquivalence) {
  check_every_spec(cpu_entries(), "P1", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(e, n);
    const auto ids = first_rows(n);
    RC_ASSERT(row_order_equivalent(e, c, ids));
  });
}

TEST(RmsnormProperties, P2EqualsIndependentReplay) {
  check_every_spec(cpu_entries(), "P2", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(e, n);
    const auto ids = first_rows(n);
    const auto got = run(e, c, ids);
    for (int s = 0; s < n; ++s) {
      const auto want = replay_row(e, c, s);
      RC_ASSERT(same_bits(got.y[std::size_t(s)], want.y));
      if (e.writes == epilogue::q8_32)
        RC_ASSERT(std::memcmp(got.q8[std::size_t(s)].data(), want.q8.data(), got.q8[std::size_t(s)].size()) == 0);
    }
  });
}

TEST(RmsnormProperties, P3SlotAndPermutationInvariance) {
  check_every_spec(cpu_entries(), "P3", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(e, n + 2);
    const auto slots = gen_permutation(n);
    const auto a = run(e, c, slots.first), b = run(e, c, slots.second);
    for (int s = 0; s < n; ++s) {
      const auto at = slots.slot_in_second(std::size_t(s));
      RC_ASSERT(same_bits(a.y[std::size_t(s)], b.y[at]));
    }
  });
}

TEST(RmsnormProperties, P4PaddingAndUnusedRowsNeverLeak) {
  check_every_spec(cpu_entries(), "P4", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(e, n);
    const auto ids = first_rows(n);
    layout padded;
    padded.x_pad = std::size_t(*rc::gen::inRange(1, 40));
    padded.out_pad = std::size_t(*rc::gen::inRange(0, 9));
    padded.q8_pad = 4 * std::size_t(*rc::gen::inRange(0, 5));
    const auto poisoned = run(e, c, ids, padded);
    RC_ASSERT(poisoned.padding_intact);
    layout clean;
    clean.poison_unused_rows = false;
    const auto tight = run(e, c, ids, clean);
    RC_ASSERT(tight.padding_intact);
    for (int s = 0; s < n; ++s) {
      RC_ASSERT(same_bits(poisoned.y[std::size_t(s)], tight.y[std::size_t(s)]));
      if (e.writes == epilogue::q8_32) RC_ASSERT(poisoned.q8[std::size_t(s)] == tight.q8[std::size_t(s)]);
    }
  });
}

// P5: the two orders are not interchangeable on these inputs; otherwise P1–P4 could pass on data
// where every order gives the same bits. Σx² has only positive terms and rsqrt halves a relative
// difference, so two orders give different rows less often than a signed dot product would:
// about one row of 4096 in seven here (27 of 200); this asserts at least one in ten.
TEST(RmsnormProperties, P5DifferentOrderChangesBits) {
  const auto& a = find_entry(1, "ls32", weighting::plain, epilogue::f32);
  const auto& b = find_entry(1, "lb32", weighting::plain, epilogue::f32);
  int differing = 0, total = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const auto c = make_case(1, 4096, 1, seed);
    differing += !same_bits(run(a, c, {0}).y[0], run(b, c, {0}).y[0]);
    ++total;
  }
  std::printf("P5 rmsnorm: ls32 vs lb32 differ on %d of %d rows of 4096\n", differing, total);
  EXPECT_GE(double(differing) / total, 0.10);
}

// Mutation check (Σx², the one reduction of rmsnorm): a runner whose row 1 is reduced in another
// order — what a K-row kernel that reassociated one row would do — must fail P1 on every case where
// that order changes row 1's bits (the independent replay says which cases those are), and such
// cases must exist.
TEST(RmsnormProperties, MutationBreakingOneRowIsCaughtByP1) {
  const auto& good = find_entry(4, "ls32", weighting::weighted, epilogue::q8_32);
  const auto& other_order = find_entry(1, "lb32", weighting::weighted, epilogue::q8_32);
  const runner mutant = [&](const cpu_entry& e, const problem& p) {
    e.run(p);
    if (p.rows > 1) {
      auto q = p;
      q.x += p.x_stride;
      q.out += p.out_stride;
      q.q8 += p.q8_row_bytes;
      q.rows = 1;
      other_order.run(q);
    }
  };
  int observable = 0, caught = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const auto c = make_case(1, 4096, 4, seed);
    EXPECT_TRUE(row_order_equivalent(good, c, {0, 1, 2, 3}));
    const bool differs = !same_bits(replay_row(good, c, 1).y, replay_row(other_order, c, 1).y);
    const bool flagged = !row_order_equivalent(good, c, {0, 1, 2, 3}, mutant);
    observable += differs;
    caught += differs && flagged;
    EXPECT_EQ(flagged, differs) << "seed " << seed;
  }
  std::printf("mutation rmsnorm: row 1 in lb32 changes bits on %d of 60 cases, P1 caught %d\n", observable, caught);
  EXPECT_GE(observable, 5);
  EXPECT_EQ(caught, observable) << "P1 missed a row reduced in another order";
}

}  // namespace
