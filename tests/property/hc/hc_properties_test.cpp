// hc: the generic drivers (P1–P4 + the double-precision oracle; no order axis, so no P5) over
// every spec on the CPU executor, and post writing the new state over the old one.
#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using H = harness<ops::hc::op>;

TEST(HcProperties, SpaceHasEveryTierAndStage) {
  EXPECT_EQ(registry::table<ops::hc::op>.size(), 9u * 4u);
  EXPECT_EQ(registry::find<ops::hc::op>("hc.r16.weighted_sum").info.part, ops::hc::stage::weighted_sum);
  EXPECT_EQ(registry::find<ops::hc::op>("hc.r1.split").tier, 1);
}

TEST(HcProperties, EverySpecPassesTheDrivers) { expect_family_passes<ops::hc::op>(cpu_backend(), property_set::cpu); }

// post may write the new state over the old one (the runtime does): the bits are the same.
TEST(HcProperties, PostInPlaceEqualsOutOfPlace) {
  const auto& e = registry::find<ops::hc::op>("hc.r4.post");
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto d = H::make(4096, 4, seed);
    const auto want = H::run(cpu_backend(), e, d, {0, 1, 2, 3}, H::tight_layout());
    std::vector<float> h, f, split;
    for (std::size_t i = 0; i < 4; ++i) {
      h.insert(h.end(), d.states[i].begin(), d.states[i].end());
      f.insert(f.end(), d.f[i].begin(), d.f[i].end());
      split.insert(split.end(), d.splits[i].begin(), d.splits[i].end());
    }
    const std::size_t flat = std::size_t(d.flat());
    const ops::hc::problem p{nullptr, 0, nullptr, nullptr, split.data(), std::size_t(H::n_split), h.data(), flat, nullptr, 0,
                             f.data(), 4096, h.data(), flat, 4096, 4, H::eps};
    e.run_cpu(p);
    for (std::size_t i = 0; i < 4; ++i)
      ASSERT_EQ(std::memcmp(h.data() + i * flat, want.rows[i].data(), flat * 4), 0) << "seed " << seed << " row " << i;
  }
}

}  // namespace
