// rope: the generic drivers (P1–P4 + oracle; no order, so no P5) over every spec on the CPU
// executor, and the inverse undoing the forward rotation.
#include <cmath>

#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using H = harness<ops::rope::op>;

TEST(RopeProperties, SpaceHasEveryTierAndDirection) { EXPECT_EQ(registry::table<ops::rope::op>.size(), 9u * 2u); }

TEST(RopeProperties, EverySpecPassesTheDrivers) { expect_family_passes<ops::rope::op>(cpu_backend(), property_set::cpu); }

// The inverse undoes the forward rotation to within rounding (a sign error in either would not).
// Per pair with S = |x0| + |x1|: the forward pass errs by <= 3.03u·S per component (rope_ref_test
// derives it), the inverse adds that for its input (|x0'| + |x1'| <= √2·S) and carries the first
// error through a rotation (<= 2·3.03u·S), and the float (cos, sin) is off the unit circle by
// <= 2u·S: in all <= (6.06 + 4.29 + 2)u·S < 13u·S.
TEST(RopeProperties, InverseUndoesForward) {
  const auto d = H::make(64, 512, 64, 1, true, 7);
  const auto once_bytes = H::run(cpu_backend(), registry::find<ops::rope::op>("rope.r1.forward"), d, {0}, H::tight_layout()).rows[0];
  auto once = d;
  once.pool[0] = H::outputs(once_bytes);
  const auto back = H::outputs(H::run(cpu_backend(), registry::find<ops::rope::op>("rope.r1.inverse"), once, {0}, H::tight_layout()).rows[0]);
  const auto& x = d.pool[0];
  for (std::size_t j = 0; j < back.size(); j += 2) {
    const double pair = std::fabs(x[j]) + std::fabs(x[j + 1]);
    ASSERT_LE(std::fabs(double(back[j]) - x[j]), 13 * 0x1p-24 * pair) << j;
    ASSERT_LE(std::fabs(double(back[j + 1]) - x[j + 1]), 13 * 0x1p-24 * pair) << j + 1;
  }
}

}  // namespace
