// The generic GPU driver: for every entry of every family in registry/all_ops.hpp, E2 (device
// bits == CPU executor bits, padded and tight layouts) and P1–P4 run on the device. Skips
// (CTest "Skipped") where no GPU is present.
#include <cstdio>

#include "device_backend.hpp"
#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;

TEST(GpuProps, EveryEntryOfEveryFamilyE2AndP1toP4OnTheDevice) {
  registry::for_each_op([]<class Op>() { expect_family_passes<Op>(device_backend(), property_set::device); });
}

}  // namespace

int main(int argc, char** argv) {
  if (device_count() == 0) {
    std::printf("SKIP: no GPU device (the GPU property driver needs one)\n");
    return 0;
  }
  std::printf("device: %s\n", device_name().c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
