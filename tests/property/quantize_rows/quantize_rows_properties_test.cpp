// quantize_rows: the generic drivers (P1–P4, oracle; P5 has no order to vary) over every spec.
#include "gtest_family.hpp"

TEST(QuantizeRowsProperties, EverySpecPassesTheDrivers) {
  ordo::test::expect_family_passes<ordo::ops::quantize_rows::op>(ordo::test::cpu_backend(), ordo::test::property_set::cpu);
}
