// The main of every ordo gtest binary (ordo_add_test without NO_MAIN): gtest_main, except that
// skips are reported to CTest as skips (support/gtest_run.hpp).
#include "support/gtest_run.hpp"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return ordo::test::run_all_tests();
}
