// The radix selection (ops/indexer/select_radix.hpp) is the indexer's top-k on any scores: equal
// to the independent stable-sort oracle (replay::top_k: score descending, NaN last, ties to the
// lowest id, ascending) and to the flat rounds (select.hpp) on drawn score arrays full of what the
// rank key must get right: −0 beside +0, NaNs of every payload and both signs, ±inf, subnormals,
// long runs of equal scores across the k-th, full-mantissa floats of mixed magnitude and sign;
// k below, at and past the count; one row at the longest history (1M context / 4 keys).
// Built a second time per ORDO_MUTANT_RADIX_* (CMakeLists.txt): each mutant must fail (WILL_FAIL).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "data.hpp"  // tests/property/drivers: order-sensitive inputs
#include "ordo/ops/indexer/replay.hpp"
#include "ordo/ops/indexer/select_cpu.hpp"
#include "ordo/ops/indexer/select_radix.hpp"

namespace {

using namespace ordo;

/// A score: mostly full-mantissa floats, else a special value or one of a few repeated ones.
float draw_score(quant::splitmix64& rng, const std::vector<float>& repeated) {
  switch (rng() % 16) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return std::bit_cast<float>(std::uint32_t(0x7f800001u + rng() % 0x7fffffu));  // NaN, any payload
    case 3: return std::bit_cast<float>(std::uint32_t(0xff800001u + rng() % 0x7fffffu));  // negative NaN
    case 4: return rng() % 2 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
    case 5: return std::bit_cast<float>(std::uint32_t(rng() % 0x800000u) | (rng() % 2 ? 0x80000000u : 0u));  // subnormal
    case 6:
    case 7:
    case 8:
    case 9: return repeated[std::size_t(rng() % repeated.size())];
    default: return test::mixed_float(rng, 6);
  }
}

std::vector<float> draw_scores(quant::splitmix64& rng, int n) {
  std::vector<float> repeated(std::size_t(1 + rng() % 6));
  for (auto& v : repeated) v = test::mixed_float(rng, 2);
  std::vector<float> s(static_cast<std::size_t>(n));
  for (auto& v : s) v = draw_score(rng, repeated);
  return s;
}

void expect_selects_top_k(const std::vector<float>& s, int k, bool with_flat, std::uint64_t seed) {
  const int n = int(s.size());
  const auto got = ops::indexer::select_radix(s.data(), n, k);
  EXPECT_EQ(got, ops::indexer::replay::top_k(s.data(), n, k)) << "seed " << seed << " n " << n << " k " << k;
  if (with_flat) EXPECT_EQ(got, ops::indexer::select_flat(s.data(), n, k)) << "seed " << seed << " n " << n << " k " << k;
}

TEST(IndexerSelectRadix, EqualsTheTopKOnDrawnScores) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    quant::splitmix64 rng{seed};
    const int n = int(rng() % 1800);
    const auto s = draw_scores(rng, n);
    const int k = seed % 3 == 0 ? 512 : seed % 7 == 0 ? std::max(1, n + int(rng() % 3) - 1) : 1 + int(rng() % 700);
    expect_selects_top_k(s, k, n * k < 400000, seed);
  }
}

// Every score +0, −0 or positive, k falling inside the zeros: the −0s and +0s tie (lowest ids).
TEST(IndexerSelectRadix, SignedZerosTieByTheId) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    quant::splitmix64 rng{seed};
    const int n = 200 + int(rng() % 400);
    std::vector<float> s(static_cast<std::size_t>(n));
    int positive = 0;
    for (auto& v : s) {
      const auto r = rng() % 3;
      v = r == 0 ? 0.0f : r == 1 ? -0.0f : std::fabs(test::mixed_float(rng, 4));
      positive += r == 2;
    }
    expect_selects_top_k(s, positive + 1 + int(rng() % std::uint64_t(n - positive - 1)), true, seed);
  }
}

// Only a few distinct scores: every pass meets buckets whose count is exactly what is needed.
TEST(IndexerSelectRadix, FewDistinctScores) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    quant::splitmix64 rng{seed};
    const int n = 1 + int(rng() % 2000), distinct = 1 + int(rng() % 5);
    std::vector<float> values(static_cast<std::size_t>(distinct));
    for (auto& v : values) v = test::mixed_float(rng, 3);
    std::vector<float> s(static_cast<std::size_t>(n));
    for (auto& v : s) v = values[std::size_t(rng() % std::uint64_t(distinct))];
    expect_selects_top_k(s, 1 + int(rng() % std::uint64_t(n)), n < 800, seed);
  }
}

// DS4's longest history: 1M context / ratio 4 keys, top-512, with ties and specials.
TEST(IndexerSelectRadix, LongestHistory) {
  quant::splitmix64 rng{99};
  expect_selects_top_k(draw_scores(rng, 262144), 512, false, 99);
}

}  // namespace
