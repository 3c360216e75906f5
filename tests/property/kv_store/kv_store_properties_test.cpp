// Properties P1–P4 of DESIGN §7 over every kv_store spec (tests mirror include/ordo/ops/kv_store),
// on the CPU executor, plus kept mutation checks: the block amax (signed instead of |x|), the FP8
// part's extent (the RoPE dims also FP8'd), the tie rule (F16 ties away from zero) — each caught by
// P2 — and the slot rule (row i written one slot late), caught by P4. P5 (a different Order
// changes bits) has nothing to check: kv_store has no Order axis (a max and element-wise roundings).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "family_properties.hpp"
#include "kv_store_harness.hpp"

namespace {

using namespace ordo::test;
using namespace ordo::test::kv_store;
using ordo::ops::kv_store::cpu_entries;
using ordo::ops::kv_store::find_entry;

/// The DS4 row (512 with 448 FP8 dims) on half the cases; odd shapes (a partial last FP8 block, no
/// RoPE dims, no FP8 dims) on the rest.
kv_case gen_case(int pool) {
  if (*rc::gen::inRange(0, 2) == 0) return make_case(512, 448, pool, *rc::gen::arbitrary<std::uint64_t>());
  const int d = *rc::gen::inRange(1, 700);
  return make_case(d, *rc::gen::inRange(0, d + 1), pool, *rc::gen::arbitrary<std::uint64_t>());
}

/// A ring of tier + 0..20 rows and a start position anywhere in it (passes that wrap included).
layout gen_layout(int tier) {
  layout l;
  l.ring_rows = tier + *rc::gen::inRange(0, 21);
  l.first_position = *rc::gen::inRange<std::int64_t>(0, 100000);
  return l;
}

bool equals_replay(const cpu_entry& e, const kv_case& c, const std::vector<int>& ids, const layout& l = {},
                   const runner& exec = run_entry) {
  const auto got = run(e, c, ids, l, exec);
  for (std::size_t s = 0; s < ids.size(); ++s)
    if (!equals_values(got.stored[s], replay_row(c, ids[s]))) return false;
  return true;
}

TEST(KvStoreProperties, SpaceHasEveryTier) {
  EXPECT_EQ(cpu_entries().size(), 9u);
  EXPECT_EQ(cpu_entries().front().name, "kv_store.r1");
}

TEST(KvStoreProperties, P1RowOrderEquivalence) {
  check_every_spec(cpu_entries(), "P1", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n);
    const auto l = gen_layout(e.tier);
    const auto many = run(e, c, first_rows(n), l);
    for (int s = 0; s < n; ++s) {
      layout alone = l;
      alone.first_position = l.first_position + s;
      RC_ASSERT(many.stored[std::size_t(s)] == run(find_entry(1), c, {s}, alone).stored[0]);
    }
  });
}

TEST(KvStoreProperties, P2EqualsIndependentReplay) {
  check_every_spec(cpu_entries(), "P2", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    RC_ASSERT(equals_replay(e, gen_case(n), first_rows(n), gen_layout(e.tier)));
  });
}

TEST(KvStoreProperties, P3SlotAndPermutationInvariance) {
  check_every_spec(cpu_entries(), "P3", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n + 2);
    const auto slots = gen_permutation(n);
    const auto l = gen_layout(e.tier);
    const auto a = run(e, c, slots.first, l), b = run(e, c, slots.second, l);
    for (int s = 0; s < n; ++s) RC_ASSERT(a.stored[std::size_t(s)] == b.stored[slots.slot_in_second(std::size_t(s))]);
  });
}

TEST(KvStoreProperties, P4PaddingOtherSlotsAndUnusedRowsNeverLeak) {
  check_every_spec(cpu_entries(), "P4", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(n);
    auto padded = gen_layout(e.tier);
    padded.kv_pad = std::size_t(*rc::gen::inRange(1, 40));
    padded.ring_pad = std::size_t(*rc::gen::inRange(0, 40));
    const auto poisoned = run(e, c, first_rows(n), padded);
    RC_ASSERT(poisoned.padding_intact);
    auto clean = padded;
    clean.kv_pad = clean.ring_pad = 0;
    clean.poison_unused_rows = false;
    const auto tight = run(e, c, first_rows(n), clean);
    RC_ASSERT(tight.padding_intact);
    for (int s = 0; s < n; ++s) RC_ASSERT(poisoned.stored[std::size_t(s)] == tight.stored[std::size_t(s)]);
  });
}

/// How many of 30 DS4-shaped 4-row cases P2 flags on `mutant` (each case first passes on the real spec).
int p2_catches(const runner& mutant) {
  const auto& good = find_entry(4);
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const auto c = make_case(512, 448, 4, seed);
    layout l;
    l.first_position = std::int64_t(seed) * 37;
    EXPECT_TRUE(equals_replay(good, c, {0, 1, 2, 3}, l));
    caught += !equals_replay(good, c, {0, 1, 2, 3}, l, mutant);
  }
  return caught;
}

/// The real op with one piece replaced: `value(p, i, e)` gives the F16 bits of dim e of row i.
template <class Value>
runner with_value(Value value) {
  return [value](const cpu_entry&, const problem& p) {
    for (int i = 0; i < p.rows; ++i)
      for (int e = 0; e < p.head_dim; ++e) ordo::ops::kv_store::slot_of(p, i)[e] = value(p, i, e);
  };
}

// Mutation check of the block amax: the signed max instead of the max of |x| (a block whose largest
// magnitude is negative gets a scale too small and saturates).
TEST(KvStoreProperties, MutationSignedAmaxIsCaughtByP2) {
  namespace ks = ordo::ops::kv_store;
  const int caught = p2_catches(with_value([](const problem& p, int i, int e) -> std::uint16_t {
    const float* x = ks::row_of(p, i);
    if (e >= p.n_rope_free) return ordo::numeric::f32_to_f16(x[e]);
    const int b0 = e - e % 64, b1 = std::min(b0 + 64, p.n_rope_free);
    float amax = ks::amax_floor;
    for (int k = b0; k < b1; ++k) amax = x[k] > amax ? x[k] : amax;
    return ordo::numeric::f32_to_f16(ks::fp8_roundtrip(x[e], ks::block_scale(amax)));
  }));
  std::printf("mutation kv_store amax: P2 caught %d of 30\n", caught);
  EXPECT_GE(caught, 25);
}

// Mutation check of the FP8 extent: the RoPE dims FP8'd as well (n_rope_free taken as head_dim).
TEST(KvStoreProperties, MutationRopeDimsQuantizedIsCaughtByP2) {
  const int caught = p2_catches(with_value([](const problem& p, int i, int e) {
    problem q = p;
    q.n_rope_free = p.head_dim;
    return ordo::ops::kv_store::stored(q, i, e);
  }));
  std::printf("mutation kv_store rope dims: P2 caught %d of 30\n", caught);
  EXPECT_EQ(caught, 30);
}

// Mutation check of the tie rule: F16 rounding with ties away from zero (the tie rows make exact ties).
TEST(KvStoreProperties, MutationF16TiesAwayIsCaughtByP2) {
  const int caught = p2_catches(with_value([](const problem& p, int i, int e) {
    const std::uint16_t rne = ordo::ops::kv_store::stored(p, i, e);
    const float v = e < p.n_rope_free ? ordo::numeric::f16_to_f32(rne) : ordo::ops::kv_store::row_of(p, i)[e];
    // Away from zero on an exact tie: the value halfway between rne and its neighbour away from 0.
    const std::uint16_t up = std::uint16_t(rne + 1);
    const double mid = (double(ordo::numeric::f16_to_f32(rne)) + double(ordo::numeric::f16_to_f32(up))) / 2;
    return std::fabs(double(v)) == std::fabs(mid) && (rne & 1u) == 0 ? up : rne;
  }));
  std::printf("mutation kv_store ties: P2 caught %d of 30\n", caught);
  EXPECT_GE(caught, 10);
}

// Mutation check of the slot rule: row i written into the slot of position first + i + 1.
TEST(KvStoreProperties, MutationWrongSlotIsCaughtByP4) {
  const auto& good = find_entry(4);
  const runner mutant = [](const cpu_entry&, const problem& p) {
    problem q = p;
    q.first_position = p.first_position + 1;
    ordo::ops::kv_store::run_cpu<4>(q);
  };
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(512, 448, 4, seed);
    EXPECT_TRUE(run(good, c, {0, 1, 2, 3}).padding_intact);
    caught += !run(good, c, {0, 1, 2, 3}, {}, mutant).padding_intact;
  }
  EXPECT_EQ(caught, 10);
}

}  // namespace
