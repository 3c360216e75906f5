// E2 for sampling, the family not yet on the generic GPU driver (tests/gpu/props): every spec's GPU bits equal the CPU
// executor's, on DS4 shapes and odd ones, with the full tier and partial tiers, padded strides and
// poisoned rows — the padding must survive on the device too — and the GPU's K-row runs equal its
// one-row runs (E1 on the device). Skips (CTest "Skipped") where no GPU is present.
#include <gtest/gtest.h>

#include <cstdio>

#include "../../property/sampling/sampling_harness.hpp"
#include "family_gpu_runners.hpp"
#include "family_properties.hpp"

namespace {

using namespace ordo::test;

/// Row counts for a tier: all of it, one, and one in between.
std::vector<int> row_counts(int tier) {
  std::vector<int> n{tier};
  if (tier > 1) n.push_back(1);
  if (tier > 2) n.push_back(tier / 2 + 1);
  return n;
}

TEST(FamilyGpu, SamplingEverySpecMatchesCpuExecutor) {
  namespace t = ordo::test::sampling;
  int runs = 0;
  for (const auto& e : ordo::ops::sampling::cpu_entries())
    for (const int n : row_counts(e.tier))
      for (const int vocab : {129280, 200, 1}) {
        const auto c = t::make_case(vocab, n, std::uint64_t(runs + 1), e.picks);  // sample: settings drawn per case
        const auto gpu = t::run(e, c, first_rows(n), 3, ordo::test::gpu_runners::sampling);
        const auto cpu = t::run(e, c, first_rows(n), 3);
        ASSERT_TRUE(gpu.padding_intact) << e.name;
        ASSERT_EQ(gpu.tokens, cpu.tokens) << e.name;
        ++runs;
      }
  std::printf("sampling: %d GPU runs over %zu specs, all equal to the CPU executor\n", runs,
              ordo::ops::sampling::cpu_entries().size());
}

}  // namespace

int main(int argc, char** argv) {
  if (ordo::test::gpu_runners::device_count() == 0) {
    std::printf("SKIP: no GPU device (the family GPU tests need one)\n");
    return 0;
  }
  std::printf("device: %s\n", ordo::test::gpu_runners::device_name().c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
