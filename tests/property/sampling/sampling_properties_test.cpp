// sampling: the generic drivers (P1–P4 + the double-precision oracle; no order axis, so no P5)
// over every spec (greedy and sample) on the CPU executor, and the tie rule on rows built to tie.
#include <limits>

#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using H = harness<ops::sampling::op>;

TEST(SamplingProperties, SpaceHasEveryTierAndMode) {
  EXPECT_EQ(registry::table<ops::sampling::op>.size(), 9u * 2u);
  EXPECT_EQ(registry::find<ops::sampling::op>("sampling.r16.sample").info.picks, ops::sampling::mode::sample);
  EXPECT_EQ(registry::find<ops::sampling::op>("sampling.r1.greedy").tier, 1);
}

TEST(SamplingProperties, EverySpecPassesTheDrivers) {
  expect_family_passes<ops::sampling::op>(cpu_backend(), property_set::cpu);
}

TEST(SamplingProperties, TiesGoToTheLowestIdAndNanNeverWins) {
  std::vector<float> z(H::ds4_vocab, -1.0f);
  z[77] = z[5000] = z[129279] = 3.0f;
  z[0] = std::numeric_limits<float>::quiet_NaN();
  H::data d{H::ds4_vocab, {z}, {}, {0, 0}};
  std::fill(z.begin(), z.end(), std::numeric_limits<float>::quiet_NaN());
  d.pool.push_back(z);
  const auto r = H::tokens(H::run(cpu_backend(), registry::find<ops::sampling::op>("sampling.r2.greedy"), d, {0, 1}, H::tight_layout()));
  EXPECT_EQ(r[0], 77);
  EXPECT_EQ(r[1], 0) << "an all-NaN row gives id 0";
}

}  // namespace
