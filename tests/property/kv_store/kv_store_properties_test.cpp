// kv_store: the generic drivers (P1–P4 + the exact double-precision oracle; no order axis, so no
// P5) over every spec on the CPU executor.
#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;

TEST(KvStoreProperties, SpaceHasEveryTier) {
  EXPECT_EQ(registry::table<ops::kv_store::op>.size(), 9u);
  EXPECT_EQ(registry::find<ops::kv_store::op>("kv_store.r16").tier, 16);
  EXPECT_EQ(registry::table<ops::kv_store::op>.front().name.view(), "kv_store.r1");
}

TEST(KvStoreProperties, EverySpecPassesTheDrivers) {
  expect_family_passes<ops::kv_store::op>(cpu_backend(), property_set::cpu);
}

}  // namespace
