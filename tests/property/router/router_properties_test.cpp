// router: the generic drivers (P1–P4 + the weight oracle; no order axis, so no P5) over every
// spec on the CPU executor, and the tie rule on a row built to tie.
#include <algorithm>

#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using H = harness<ops::router::op>;

TEST(RouterProperties, SpaceHasEveryTierAndSelection) { EXPECT_EQ(registry::table<ops::router::op>.size(), 9u * 2u); }

TEST(RouterProperties, EverySpecPassesTheDrivers) {
  expect_family_passes<ops::router::op>(cpu_backend(), property_set::cpu);
}

// Every logit equal, so the experts are 0..n_used-1.
TEST(RouterProperties, AllEqualScoresPickTheLowestIds) {
  auto d = H::make(256, 6, 1, false, false, 3);
  std::fill(d.pool[0].begin(), d.pool[0].end(), 0.75f);
  const auto row = H::run(cpu_backend(), registry::find<ops::router::op>("router.r1.topk"), d, {0}, H::tight_layout()).rows[0];
  std::vector<std::int32_t> experts(6);
  std::memcpy(experts.data(), row.data(), 24);
  EXPECT_EQ(experts, (std::vector<std::int32_t>{0, 1, 2, 3, 4, 5}));
}

}  // namespace
