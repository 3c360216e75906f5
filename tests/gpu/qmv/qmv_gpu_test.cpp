// qmv on the GPU at full DS4 shapes, every order and tier the preset ships for the format, every
// row: GPU tier t == CPU executor tier t (E2) and == GPU tier 1 (P1 on the device). Shapes with
// more than one shared-memory window per row (> window_blocks: 128 Q8_0 / 256 MXFP4 blocks on
// sm90) are included, and asserted to be multi-window, so that path is taken. The output head
// (129280 rows) runs at tiers 1, 8, 16 of ls32 only, to bound the CPU executor's time. Q8_0 from
// the policy's mma_min_rows (5 on sm90) runs the mma kernel where rows are in whole 16-byte
// granules (ops/qmv/int8_mma_tree.hpp): q_b and the granule-tail shapes at tiers 5-8 and 16, the
// head at 8 and 16.
#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>

#include "../../property/qmv/harness.hpp"
#include "device_backend.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using H = harness<ops::qmv::op>;

struct ds4_shape {
  const char* what;
  const char* format;
  int n_out, k;
  bool all_tiers_and_orders;
};

class QmvGpuDs4 : public ::testing::TestWithParam<ds4_shape> {};

TEST_P(QmvGpuDs4, EveryTierAndOrderMatchesCpuAndTier1) {
  const auto s = GetParam();
  int dot_elems = 0, window = 0;
  H::with_format(s.format, [&]<class F>() {
    dot_elems = F::dot_elems;
    window = ops::qmv::window_blocks<F, tune::preset::qmv::policy>;
  });
  const int nb = s.k / dot_elems;
  std::printf("%s: %s %d x %d, %d blocks per row, %d window(s) of %d blocks\n", s.what, s.format, s.n_out, s.k, nb,
              (nb + window - 1) / window, window);
  int largest = 0;
  for (const auto& e : registry::table<ops::qmv::op>)
    if (e.info.format == s.format) largest = std::max(largest, e.tier);
  const auto d = H::make(s.format, s.n_out, nb, largest, 7);
  const auto gpu = device_backend();
  int checked = 0;
  for (const auto& one : registry::table<ops::qmv::op>) {
    if (one.info.format != s.format || one.tier != 1) continue;
    if (!s.all_tiers_and_orders && one.info.order != "ls32") continue;
    std::vector<std::vector<std::byte>> alone;
    for (int r = 0; r < largest; ++r) alone.push_back(H::run(gpu, one, d, {r}, H::tight_layout()).rows[0]);
    for (const auto& e : registry::table<ops::qmv::op>) {
      if (e.info.format != s.format || e.info.order != one.info.order) continue;
      if (!s.all_tiers_and_orders && e.tier != 1 && e.tier != 8 && e.tier != largest) continue;
      std::vector<int> ids(static_cast<std::size_t>(e.tier));
      std::iota(ids.begin(), ids.end(), 0);
      const auto on_gpu = H::run(gpu, e, d, ids, H::tight_layout());
      const auto on_cpu = H::run(cpu_backend(), e, d, ids, H::tight_layout());
      ASSERT_TRUE(on_gpu.padding_intact) << e.name.view();
      for (int r = 0; r < e.tier; ++r) {
        EXPECT_TRUE(same_bits(on_gpu.rows[std::size_t(r)], on_cpu.rows[std::size_t(r)])) << e.name.view() << " row " << r;
        EXPECT_TRUE(same_bits(on_gpu.rows[std::size_t(r)], alone[std::size_t(r)])) << e.name.view() << " row " << r;
      }
      ++checked;
    }
  }
  std::printf("  %d specs checked, all rows\n", checked);
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Ds4, QmvGpuDs4,
    ::testing::Values(ds4_shape{"routed gate/up", "mxfp4", 2048, 4096, true},
                      ds4_shape{"routed down", "mxfp4", 4096, 2048, true},
                      ds4_shape{"attention q_b", "q8_0", 32768, 1024, true},
                      ds4_shape{"output head", "q8_0", 129280, 4096, false},
                      ds4_shape{"q4_k 4096", "q4_k", 2048, 4096, true}, ds4_shape{"q2_k 2048", "q2_k", 4096, 2048, true},
                      ds4_shape{"iq2_xxs 4096", "iq2_xxs", 2048, 4096, true},
                      // multi-window rows with a tail window (not a multiple of 32 blocks)
                      ds4_shape{"q8_0 multi-window", "q8_0", 1024, 32 * 301, true},
                      ds4_shape{"mxfp4 multi-window", "mxfp4", 1024, 32 * 613, true},
                      // rows in whole 16-byte granules (the mma kernel's bulk copies: Q8_0 blocks a
                      // multiple of 8) with a short last window and a partial last 16-row tile; and
                      // rows shorter than one window (leaves with no block)
                      ds4_shape{"q8_0 granule tail", "q8_0", 1000, 32 * 296, true},
                      ds4_shape{"q8_0 short rows", "q8_0", 37, 32 * 8, true}));

// The shapes above include multi-window rows on this preset (so the window loop runs > once).
TEST(QmvGpuWindows, MultiWindowShapesAreMultiWindow) {
  EXPECT_GT(301, (ops::qmv::window_blocks<quant::q8_0, tune::preset::qmv::policy>));
  EXPECT_GT(613, (ops::qmv::window_blocks<quant::mxfp4, tune::preset::qmv::policy>));
}

}  // namespace

int main(int argc, char** argv) {
  if (device_count() == 0) {
    std::printf("SKIP: no GPU device (qmv GPU tests need one)\n");
    return 0;
  }
  std::printf("device: %s, %zu qmv specs\n", device_name().c_str(), registry::table<ops::qmv::op>.size());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
