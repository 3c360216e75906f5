// Properties P1–P4 of DESIGN §7 over every rope spec, on the CPU executor, and a mutation check.
// rope has no reduction (so no Order and no P5); P1 still holds every slot of a K-row pass to the
// one-row bits, P2 to the independent replay, P4 to untouched padding and non-rotated dims.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "family_properties.hpp"
#include "rope_harness.hpp"

namespace {

using namespace ordo::test;
using namespace ordo::test::rope;
using ordo::ops::rope::cpu_entries;
using ordo::ops::rope::find_entry;

/// DS4 shapes (Q: 64 heads of 512, KV row: 1 of 512, indexer Q: 64 of 128) and odd ones.
rope_case gen_case(int pool) {
  const int shape = *rc::gen::inRange(0, 4);
  int heads = 1, dim = 512, rot = 64;
  if (shape == 0) heads = 64;
  else if (shape == 1) heads = 64, dim = 128;
  else if (shape == 2) heads = *rc::gen::inRange(1, 6), rot = 2 * *rc::gen::inRange(1, 20), dim = rot + *rc::gen::inRange(0, 50);
  return make_case(heads, dim, rot, pool, *rc::gen::arbitrary<bool>(), *rc::gen::arbitrary<std::uint64_t>());
}

bool row_order_equivalent(const cpu_entry& e, const rope_case& c, const std::vector<int>& ids,
                          const runner& exec = run_entry) {
  const auto many = run(e, c, ids, {}, exec);
  for (std::size_t s = 0; s < ids.size(); ++s)
    if (!same_bits(many.y[s], run(find_entry(1, e.turn), c, {ids[s]}).y[0])) return false;
  return true;
}

TEST(RopeProperties, SpaceHasEveryTierAndDirection) { EXPECT_EQ(cpu_entries().size(), 9u * 2u); }

TEST(RopeProperties, P1RowOrderEquivalence) {
  check_every_spec(cpu_entries(), "P1", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    RC_ASSERT(row_order_equivalent(e, gen_case(n), first_rows(n)));
  });
}

TEST(RopeProperties, P2EqualsIndependentReplay) {
  check_every_spec(cpu_entries(), "P2", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n);
    const auto got = run(e, c, first_rows(n));
    for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(got.y[std::size_t(s)], replay_row(e, c, s)));
  });
}

TEST(RopeProperties, P3SlotAndPermutationInvariance) {
  check_every_spec(cpu_entries(), "P3", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n + 2);
    const auto slots = gen_permutation(n);
    const auto a = run(e, c, slots.first), b = run(e, c, slots.second);
    for (int s = 0; s < n; ++s) {
      const auto at = slots.slot_in_second(std::size_t(s));
      RC_ASSERT(same_bits(a.y[std::size_t(s)], b.y[at]));
    }
  });
}

TEST(RopeProperties, P4PaddingRowsPastNAndFreeDimsUntouched) {
  check_every_spec(cpu_entries(), "P4", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n);
    const layout padded{std::size_t(*rc::gen::inRange(1, 40)), std::size_t(*rc::gen::inRange(0, 9))};
    const auto a = run(e, c, first_rows(n), padded), b = run(e, c, first_rows(n));
    RC_ASSERT(a.untouched_intact);
    RC_ASSERT(b.untouched_intact);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(a.y[std::size_t(s)], b.y[std::size_t(s)]));
  });
}

// The inverse undoes the forward rotation to within rounding (a sign error in either would not).
// Per pair with S = |x0| + |x1|: the forward pass errs by <= 3.03u·S per component (rope_ref_test
// derives it), the inverse adds that for its input (|x0'| + |x1'| <= √2·S) and carries the first
// error through a rotation (<= 2·3.03u·S), and the float (cos, sin) is off the unit circle by
// <= 2u·S: in all <= (6.06 + 4.29 + 2)u·S < 13u·S.
TEST(RopeProperties, InverseUndoesForward) {
  const auto c = make_case(64, 512, 64, 1, true, 7);
  auto once = c;
  once.pool[0] = run(find_entry(1, direction::forward), c, {0}).y[0];
  const auto back = run(find_entry(1, direction::inverse), once, {0}).y[0];
  const auto& x = c.pool[0];
  for (std::size_t j = 0; j < back.size(); j += 2) {
    const double pair = std::fabs(x[j]) + std::fabs(x[j + 1]);
    ASSERT_LE(std::fabs(double(back[j]) - x[j]), 13 * unit_roundoff * pair) << j;
    ASSERT_LE(std::fabs(double(back[j + 1]) - x[j + 1]), 13 * unit_roundoff * pair) << j + 1;
  }
}

// Mutation check: a runner whose row 1 rotates with two rounded products and a subtraction (what a
// kernel that lost the fmaf for one row would do) must fail P1 on every case; 64 heads of 512 give
// 2048 pairs, so some pair always rounds differently.
TEST(RopeProperties, MutationUnfusedRowIsCaughtByP1) {
  const auto& good = find_entry(4, direction::forward);
  const runner unfused = [](const cpu_entry& e, const problem& p) {
    // Row 1 first, unfused, from the untouched input; then the good kernel on the other rows.
    const float sign = e.turn == direction::forward ? 1.0f : -1.0f;
    float* row = p.x + p.x_stride;
    const float* t = p.cos_sin + p.table_stride;
    for (int h = 0; h < p.n_heads; ++h)
      for (int k = 0; k < p.n_rot / 2; ++k) {
        float* pair = row + std::size_t(h) * p.head_dim + (p.head_dim - p.n_rot + 2 * k);
        const float c = t[2 * k], s = sign * t[2 * k + 1], x0 = pair[0], x1 = pair[1];
        const float x0c = x0 * c, x1s = x1 * s, x0s = x0 * s, x1c = x1 * c;
        pair[0] = x0c - x1s;
        pair[1] = x0s + x1c;
      }
    auto first = p;
    first.rows = 1;
    e.run(first);
    auto rest = p;
    rest.x += 2 * p.x_stride;
    rest.cos_sin += 2 * p.table_stride;
    rest.rows = p.rows - 2;
    if (rest.rows > 0) e.run(rest);
  };
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(64, 512, 64, 4, seed % 2 == 0, seed);
    EXPECT_TRUE(row_order_equivalent(good, c, {0, 1, 2, 3}));
    EXPECT_FALSE(row_order_equivalent(good, c, {0, 1, 2, 3}, unfused)) << "seed " << seed;
  }
}

}  // namespace
