// The indexer's exact top-k (ops/indexer/select.hpp) on the CPU executor: the flat and the
// hierarchical selectors against an independent replay (a stable sort of every id by score,
// descending, NaN last; the first k; ascending), on DS4's top-512 over thousands of scores and on
// small odd sizes, with deliberate ties, ±0 and NaN scores; and the mutation check of the tie rule.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "data.hpp"  // tests/property/drivers: order-sensitive inputs
#include "ordo/ops/indexer/replay.hpp"
#include "ordo/ops/indexer/select_cpu.hpp"

namespace {

using namespace ordo::ops::indexer;

/// The independent replay (ops/indexer/replay.hpp): a stable sort, the first k, ascending.
std::vector<std::int32_t> replay_top_k(const std::vector<float>& s, int k) {
  return ordo::ops::indexer::replay::top_k(s.data(), int(s.size()), k);
}

/// Scores of mixed magnitude and sign; with `ties`, a third copy another score (and some ±0, NaN).
std::vector<float> make_scores(int n, bool ties, std::uint64_t seed) {
  ordo::quant::splitmix64 rng{seed};
  auto s = ordo::test::mixed_floats(rng, std::size_t(n), 6);
  if (ties && n > 0) {
    for (int j = 0; j < n / 3; ++j) s[rng() % std::uint64_t(n)] = s[rng() % std::uint64_t(n)];
    for (int j = 0; j < n / 50 + 1; ++j) s[rng() % std::uint64_t(n)] = (rng() & 1) ? 0.0f : -0.0f;
    s[rng() % std::uint64_t(n)] = std::numeric_limits<float>::quiet_NaN();
  }
  return s;
}

TEST(IndexerSelect, FlatAndHierarchicalEqualTheReplay) {
  EXPECT_TRUE(rc::check("top-k == replay", [] {
    const bool ds4 = *rc::gen::inRange(0, 4) == 0;
    const int n = ds4 ? *rc::gen::inRange(513, 4500) : *rc::gen::inRange(0, 300);
    const int k = ds4 ? 512 : *rc::gen::inRange(1, 80);
    const int block = ds4 ? 1024 : *rc::gen::inRange(1, 100);
    const auto s = make_scores(n, *rc::gen::arbitrary<bool>(), *rc::gen::arbitrary<std::uint64_t>());
    const auto want = replay_top_k(s, k);
    RC_ASSERT(select_flat(s.data(), n, k) == want);
    RC_ASSERT(select_hierarchical(s.data(), n, k, block) == want);
  }));
}

// DS4 size, fixed: 4096 compressed rows (a 16k-token history), top-512, blocks of 1024.
TEST(IndexerSelect, Ds4Top512OverThousandsOfRows) {
  for (const bool ties : {false, true}) {
    const auto s = make_scores(4096, ties, 42 + ties);
    const auto want = replay_top_k(s, 512);
    ASSERT_EQ(want.size(), 512u);
    EXPECT_EQ(select_flat(s.data(), 4096, 512), want);
    EXPECT_EQ(select_hierarchical(s.data(), 4096, 512, 1024), want);
  }
}

TEST(IndexerSelect, AllEqualScoresPickTheLowestIds) {
  const std::vector<float> s(2000, 0.5f);
  std::vector<std::int32_t> want(512);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(select_flat(s.data(), 2000, 512), want);
  EXPECT_EQ(select_hierarchical(s.data(), 2000, 512, 300), want);
}

// Mutation check of the tie rule: a selector whose ties go to the highest id (the flat selector
// run on the reversed scores, its ids mapped back) must differ from the replay on tie cases —
// exactly where the replay of the reversed rule differs too.
TEST(IndexerSelect, MutationTiesToHighestIdIsCaught) {
  int observable = 0, caught = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const int n = 1500;
    // Scores from 64 values: every score is tied many times, at the threshold too.
    ordo::quant::splitmix64 rng{seed};
    std::vector<float> s(static_cast<std::size_t>(n));
    for (auto& v : s) v = float(rng() % 64) * 0.375f - 7.0f;
    std::vector<float> reversed(s.rbegin(), s.rend());
    auto mutant = select_flat(reversed.data(), n, 512);
    for (auto& id : mutant) id = n - 1 - id;
    std::sort(mutant.begin(), mutant.end());
    auto highest_rule = replay_top_k(reversed, 512);
    for (auto& id : highest_rule) id = n - 1 - id;
    std::sort(highest_rule.begin(), highest_rule.end());
    const auto want = replay_top_k(s, 512);
    const bool differs = highest_rule != want, flagged = mutant != want;
    observable += differs;
    caught += differs && flagged;
    EXPECT_EQ(flagged, differs) << "seed " << seed;
  }
  std::printf("mutation indexer top-k (ties to highest id): observable on %d of 20, caught %d\n", observable, caught);
  EXPECT_GE(observable, 18);
  EXPECT_EQ(caught, observable);
}

}  // namespace
