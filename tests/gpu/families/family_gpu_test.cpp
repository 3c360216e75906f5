// E2 for the op families rmsnorm, rope, router and sampling: every spec's GPU bits equal the CPU
// executor's, on DS4 shapes and odd ones, with the full tier and partial tiers, padded strides and
// poisoned rows — the padding must survive on the device too — and the GPU's K-row runs equal its
// one-row runs (E1 on the device). Skips (CTest "Skipped") where no GPU is present.
#include <gtest/gtest.h>

#include <cstdio>
#include <tuple>
#include <utility>

#include "../../property/rmsnorm/rmsnorm_harness.hpp"
#include "../../property/rope/rope_harness.hpp"
#include "../../property/router/router_harness.hpp"
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

TEST(FamilyGpu, RmsnormEverySpecMatchesCpuExecutor) {
  namespace t = ordo::test::rmsnorm;
  int runs = 0;
  for (const auto& e : ordo::ops::rmsnorm::cpu_entries())
    for (const int n : row_counts(e.tier))
      for (const auto& [heads, dim] : {std::pair{1, 4096}, std::pair{64, 512}, std::pair{1, 16384}, std::pair{3, 96}}) {
        const auto c = t::make_case(heads, dim, n, std::uint64_t(runs + 1));
        const t::layout padded{7, 3, 8, true};
        const auto gpu = t::run(e, c, first_rows(n), padded, ordo::test::gpu_runners::rmsnorm);
        const auto cpu = t::run(e, c, first_rows(n), padded);
        ASSERT_TRUE(gpu.padding_intact) << e.name;
        for (int s = 0; s < n; ++s) {
          ASSERT_TRUE(same_bits(gpu.y[std::size_t(s)], cpu.y[std::size_t(s)])) << e.name << " slot " << s;
          if (!cpu.q8.empty()) ASSERT_EQ(gpu.q8[std::size_t(s)], cpu.q8[std::size_t(s)]) << e.name << " slot " << s;
        }
        ++runs;
      }
  std::printf("rmsnorm: %d GPU runs over %zu specs, all equal to the CPU executor\n", runs,
              ordo::ops::rmsnorm::cpu_entries().size());
}

TEST(FamilyGpu, RopeEverySpecMatchesCpuExecutor) {
  namespace t = ordo::test::rope;
  int runs = 0;
  for (const auto& e : ordo::ops::rope::cpu_entries())
    for (const int n : row_counts(e.tier))
      for (const auto& [heads, dim, rot] : {std::tuple{64, 512, 64}, std::tuple{1, 512, 64}, std::tuple{64, 128, 64}, std::tuple{3, 40, 18}}) {
        const auto c = t::make_case(heads, dim, rot, n, runs % 2 == 0, std::uint64_t(runs + 1));
        const t::layout padded{5, 2};
        const auto gpu = t::run(e, c, first_rows(n), padded, ordo::test::gpu_runners::rope);
        const auto cpu = t::run(e, c, first_rows(n), padded);
        ASSERT_TRUE(gpu.untouched_intact) << e.name;
        for (int s = 0; s < n; ++s) ASSERT_TRUE(same_bits(gpu.y[std::size_t(s)], cpu.y[std::size_t(s)])) << e.name << " slot " << s;
        ++runs;
      }
  std::printf("rope: %d GPU runs over %zu specs, all equal to the CPU executor\n", runs, ordo::ops::rope::cpu_entries().size());
}

TEST(FamilyGpu, RouterEverySpecMatchesCpuExecutor) {
  namespace t = ordo::test::router;
  int runs = 0;
  for (const auto& e : ordo::ops::router::cpu_entries())
    for (const int n : row_counts(e.tier))
      for (const auto& [experts, used, bias, ties] : {std::tuple{256, 6, true, false}, std::tuple{256, 6, false, true}, std::tuple{37, 8, true, false}}) {
        const auto c = t::make_case(experts, used, n, bias, ties, std::uint64_t(runs + 1));
        const t::layout padded{9, 2};
        const auto gpu = t::run(e, c, first_rows(n), padded, ordo::test::gpu_runners::router);
        const auto cpu = t::run(e, c, first_rows(n), padded);
        ASSERT_TRUE(gpu.padding_intact) << e.name;
        for (int s = 0; s < n; ++s) {
          ASSERT_EQ(gpu.experts[std::size_t(s)], cpu.experts[std::size_t(s)]) << e.name << " slot " << s;
          ASSERT_TRUE(same_bits(gpu.weights[std::size_t(s)], cpu.weights[std::size_t(s)])) << e.name << " slot " << s;
        }
        ++runs;
      }
  std::printf("router: %d GPU runs over %zu specs, all equal to the CPU executor\n", runs, ordo::ops::router::cpu_entries().size());
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
