// rmsnorm: the generic drivers (P1–P5 + oracle, DESIGN §7) over every spec on the CPU executor.
#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;

TEST(RmsnormProperties, SpaceHasEveryTierOrderAndOption) {
  EXPECT_EQ(registry::table<ops::rmsnorm::op>.size(), 9u * 2u * 2u * 2u);
  EXPECT_NO_THROW(registry::find<ops::rmsnorm::op>("rmsnorm.r16.lb32.plain.q8_32"));
}

TEST(RmsnormProperties, EverySpecPassesTheDrivers) {
  expect_family_passes<ops::rmsnorm::op>(cpu_backend(), property_set::cpu);
}

}  // namespace
