// Properties P1–P4 of DESIGN §7 over every hc spec (tests mirror include/ordo/ops/hc), on the CPU
// executor, plus one kept mutation check per reduction kind: the Sinkhorn (19 iterations on one
// row of a pass, caught by P1; on every row, caught by P2), the stream sum of weighted_sum and
// collapse (a summed 3..0, caught by P2) and post's (b summed 3..0, caught by P2). P5 (a different
// Order changes bits) has nothing to check: hc has no Order axis, every sum being 4 terms in one
// fixed sequence; the mutation checks are what show these properties can fail.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "family_properties.hpp"
#include "hc_harness.hpp"

namespace {

using namespace ordo::test;
using namespace ordo::test::hc;
using ordo::ops::hc::cpu_entries;
using ordo::ops::hc::find_entry;
using ordo::ops::hc::sinkhorn_iters;

/// The DS4 width (n_embd 4096) on a quarter of the cases, odd widths on the rest (split reads no
/// state: its width only sizes the untouched buffers).
hc_case gen_case(int pool) {
  const int n_embd = *rc::gen::oneOf(rc::gen::just(4096), rc::gen::inRange(1, 300), rc::gen::inRange(1, 300),
                                     rc::gen::inRange(300, 1100));
  return make_case(n_embd, pool, *rc::gen::arbitrary<std::uint64_t>());
}

const cpu_entry& one_row_twin(const cpu_entry& e) { return find_entry(1, e.part); }

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

TEST(HcProperties, SpaceHasEveryTierAndStage) {
  EXPECT_EQ(cpu_entries().size(), 9u * 4u);
  EXPECT_EQ(cpu_entries().front().name, "hc.r1.split");
  EXPECT_EQ(cpu_entries().back().name, "hc.r16.collapse");
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
    padded.mix_pad = std::size_t(*rc::gen::inRange(1, 9));
    padded.split_pad = std::size_t(*rc::gen::inRange(1, 9));
    padded.h_pad = std::size_t(*rc::gen::inRange(1, 40));
    padded.x_pad = std::size_t(*rc::gen::inRange(0, 9));
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
  const auto& e = find_entry(4, stage::post);
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(4096, 4, seed);
    const auto want = run(e, c, {0, 1, 2, 3});
    std::vector<float> h, f, split;
    for (std::size_t i = 0; i < 4; ++i) {
      h.insert(h.end(), c.states[i].begin(), c.states[i].end());
      f.insert(f.end(), c.f[i].begin(), c.f[i].end());
      split.insert(split.end(), c.splits[i].begin(), c.splits[i].end());
    }
    const std::size_t flat = std::size_t(c.flat());
    const problem p{nullptr, 0, nullptr, nullptr, split.data(), n_split, h.data(), flat, nullptr, 0,
                    f.data(), 4096, h.data(), flat, 4096, 4, eps};
    e.run(p);
    for (std::size_t i = 0; i < 4; ++i) ASSERT_TRUE(same_bits(h.data() + i * flat, want.h_new[i].data(), flat)) << seed;
  }
}

// Mutation check of the Sinkhorn inside a pass: row 1 of a 4-row split run with 19 iterations (a
// K-row kernel that treated one row differently) must fail P1 on every case where that changes
// row 1's bits (the replay with 20 vs the mutant says which), and such cases must exist.
TEST(HcProperties, MutationOneRowWith19IterationsIsCaughtByP1) {
  const auto& good = find_entry(4, stage::split);
  const runner mutant = [](const cpu_entry& e, const problem& p) {
    e.run(p);
    if (p.rows < 2) return;
    auto q = p;
    q.mix += p.mix_stride;
    q.split += p.split_stride;
    q.rows = 1;
    ordo::ops::hc::run_cpu<1, stage::split, sinkhorn_iters - 1>(q);
  };
  int observable = 0, caught = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const auto c = make_case(64, 4, seed);
    EXPECT_TRUE(row_order_equivalent(good, c, {0, 1, 2, 3}));
    const bool differs = !same_slot(run(good, c, {0, 1, 2, 3}, {}, mutant), 1, replay_row(good, c, 1), 0);
    const bool flagged = !row_order_equivalent(good, c, {0, 1, 2, 3}, mutant);
    observable += differs;
    caught += differs && flagged;
    EXPECT_EQ(flagged, differs) << "seed " << seed;
  }
  std::printf("mutation hc split: row 1 with 19 Sinkhorn iterations changes bits on %d of 40 cases, P1 caught %d\n",
              observable, caught);
  EXPECT_GE(observable, 30);
  EXPECT_EQ(caught, observable);
}

/// How many of `cases` cases (width n_embd) P2 flags on `mutant` run as spec `good`; each case
/// first checks that P2 passes on the real spec.
int p2_catches(const cpu_entry& good, const runner& mutant, int n_embd, std::uint64_t cases) {
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= cases; ++seed) {
    const auto c = make_case(n_embd, 4, seed);
    EXPECT_TRUE(equals_replay(good, c, {0, 1, 2, 3}));
    caught += !equals_replay(good, c, {0, 1, 2, 3}, mutant);
  }
  return caught;
}

// Mutation check of the Sinkhorn: 19 iterations instead of 20 on every row must fail P2 (the comb
// entries move in their last bits even where the iteration has nearly converged).
TEST(HcProperties, MutationSinkhorn19IterationsIsCaughtByP2) {
  const runner mutant = [](const cpu_entry&, const problem& p) {
    ordo::ops::hc::run_cpu<4, stage::split, sinkhorn_iters - 1>(p);
  };
  const int caught = p2_catches(find_entry(4, stage::split), mutant, 64, 20);
  std::printf("mutation hc sinkhorn: 19 iterations caught by P2 on %d of 20 cases\n", caught);
  EXPECT_GE(caught, 18);
}

/// x_j = Σ_a w[a]·H[a][j] with a summed 3..0 (the mutant of weighted_sum and collapse).
void collapse_reversed(const problem& p, int i, const float* w) {
  const std::size_t n = std::size_t(p.n_embd);
  const float* h = p.h + std::size_t(i) * p.h_stride;
  for (std::size_t j = 0; j < n; ++j) {
    float acc = 0.0f;
    for (std::size_t a = 4; a-- > 0;) acc = fmaf(w[a], h[a * n + j], acc);
    p.x[std::size_t(i) * p.x_stride + j] = acc;
  }
}

// Mutation check of the stream sums of weighted_sum and collapse: a summed 3..0.
TEST(HcProperties, MutationStreamSumOrderIsCaughtByP2) {
  const runner weighted_mutant = [](const cpu_entry&, const problem& p) {
    for (int i = 0; i < p.rows; ++i) collapse_reversed(p, i, p.split + std::size_t(i) * p.split_stride);
  };
  const runner collapse_mutant = [](const cpu_entry&, const problem& p) {
    for (int i = 0; i < p.rows; ++i) {
      float w[4];
      ordo::ops::hc::head_weights(p.mix + std::size_t(i) * p.mix_stride, p.scale, p.base, p.hc_eps, w);
      collapse_reversed(p, i, w);
    }
  };
  const int weighted = p2_catches(find_entry(4, stage::weighted_sum), weighted_mutant, 256, 10);
  const int collapse = p2_catches(find_entry(4, stage::collapse), collapse_mutant, 256, 10);
  std::printf("mutation hc stream sum: a reversed caught by P2 on %d (weighted_sum), %d (collapse) of 10 cases\n",
              weighted, collapse);
  EXPECT_EQ(weighted, 10);
  EXPECT_EQ(collapse, 10);
}

// Mutation check of post's stream sum: b summed 3..0 instead of 0..3.
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
  const int caught = p2_catches(find_entry(4, stage::post), mutant, 256, 10);
  std::printf("mutation hc post: reversed stream sum caught by P2 on %d of 10 cases\n", caught);
  EXPECT_EQ(caught, 10);
}

}  // namespace
