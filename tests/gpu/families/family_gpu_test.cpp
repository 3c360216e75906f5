// E2 for the op families not yet on the generic GPU driver (tests/gpu/props): attention and indexer: every spec's GPU bits equal the CPU
// executor's, on DS4 shapes and odd ones, with the full tier and partial tiers, padded strides and
// poisoned rows — the padding must survive on the device too — and the GPU's K-row runs equal its
// one-row runs (E1 on the device). Skips (CTest "Skipped") where no GPU is present.
#include <gtest/gtest.h>

#include <cstdio>
#include <tuple>
#include <utility>

#include "../../property/attention/attention_harness.hpp"
#include "../../property/indexer/indexer_harness.hpp"
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

TEST(FamilyGpu, AttentionEverySpecMatchesCpuExecutor) {
  namespace t = ordo::test::attention;
  int runs = 0;
  for (const auto& e : ordo::ops::attention::cpu_entries())
    for (const int n : row_counts(e.tier))
      // (heads, head_dim, table rows, longest list): DS4's 64 × 512 over 640 rows, odd shapes.
      for (const auto& [heads, dim, table, list] : {std::tuple{64, 512, 2176, 640}, std::tuple{3, 96, 100, 150}, std::tuple{5, 33, 40, 70}}) {
        if (heads == 64 && n > 2) continue;  // the CPU executor's side of a 64-head case is seconds per row
        auto c = t::make_case(heads, dim, table, n, list, e.sees == ordo::ops::attention::visibility::general, std::uint64_t(runs + 1));
        c.lists[0].resize(std::size_t(list), 1);  // one full-length history per run
        const t::layout padded{3, 5, 2, 4, e.chunk + 1};
        const auto gpu = t::run(e, c, first_rows(n), padded, ordo::test::gpu_runners::attention);
        const auto cpu = t::run(e, c, first_rows(n), padded);
        ASSERT_TRUE(gpu.padding_intact) << e.name;
        for (int s = 0; s < n; ++s) ASSERT_TRUE(same_bits(gpu.y[std::size_t(s)], cpu.y[std::size_t(s)])) << e.name << " slot " << s;
        ++runs;
      }
  std::printf("attention: %d GPU runs over %zu specs, all equal to the CPU executor\n", runs,
              ordo::ops::attention::cpu_entries().size());
}

TEST(FamilyGpu, IndexerEverySpecMatchesCpuExecutor) {
  namespace t = ordo::test::indexer;
  int runs = 0;
  for (const auto& e : ordo::ops::indexer::cpu_entries())
    for (const int n : row_counts(e.tier))
      // (heads, head_dim, keys, top_k, ties): DS4's 64 × 128 over 2500 keys with top-512, odd shapes.
      for (const auto& [heads, dim, keys, k, ties] : {std::tuple{64, 128, 2500, 512, false}, std::tuple{64, 128, 1300, 512, true},
                                                     std::tuple{3, 16, 700, 37, true}, std::tuple{5, 1, 90, 200, false}}) {
        if (heads == 64 && n > 2) continue;  // the CPU executor's side of a 64-head case is slow per row
        auto c = t::make_case(heads, dim, keys, k, n, ties, std::uint64_t(runs + 1));
        c.n_visible[0] = keys;  // one full history per run
        const t::layout padded{3, 2, 5, 4, 6, 40};
        const auto gpu = t::run(e, c, first_rows(n), padded, ordo::test::gpu_runners::indexer);
        const auto cpu = t::run(e, c, first_rows(n), padded);
        ASSERT_TRUE(gpu.padding_intact) << e.name;
        for (int s = 0; s < n; ++s) {
          ASSERT_TRUE(same_bits(gpu.scores[std::size_t(s)], cpu.scores[std::size_t(s)])) << e.name << " slot " << s;
          ASSERT_EQ(gpu.selected[std::size_t(s)], cpu.selected[std::size_t(s)]) << e.name << " slot " << s;
        }
        ++runs;
      }
  std::printf("indexer: %d GPU runs over %zu specs, all equal to the CPU executor\n", runs, ordo::ops::indexer::cpu_entries().size());
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
