// qmv on the GPU: E2 (GPU bits == CPU-executor bits, quantizers and every spec) and the
// properties P1–P4 run on the device. Skips (CTest "Skipped") where no GPU is present.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "../../property/qmv/qmv_properties.hpp"
#include "gpu_backend.hpp"

namespace {

using namespace ordo::test;

TEST(QmvGpu, E2QuantizersMatchCpuBytes) {
  for (const auto& qe : ordo::registry::quantize_table) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      // k = 4096 floats, 3 rows, mixed magnitudes; act formats have blocks of 32 or 256
      ordo::quant::splitmix64 rng{seed};
      std::vector<float> x(3 * 4096);
      for (auto& v : x) v = mixed_float(rng, 20);
      const std::size_t row_bytes = std::size_t(4096 / qe.block_elems) * std::size_t(qe.block_bytes);
      std::vector<std::byte> cpu(3 * row_bytes), gpu(3 * row_bytes);
      const ordo::ops::qmv::quantize_problem pc{x.data(), 4096, cpu.data(), row_bytes, 4096, 3};
      auto pg = pc;
      pg.out = gpu.data();
      cpu_backend().quantize(qe, pc);
      gpu_backend().quantize(qe, pg);
      EXPECT_EQ(std::memcmp(cpu.data(), gpu.data(), cpu.size()), 0) << qe.activation << " seed " << seed;
    }
  }
}

TEST(QmvGpu, E2EverySpecMatchesCpuExecutor) {
  check_every_spec("E2", [](const qmv_entry& e) {
    const int n = *rc::gen::inRange(1, e.tier + 1);
    const auto c = gen_case(e, n);
    std::vector<int> ids(static_cast<std::size_t>(n));
    std::iota(ids.begin(), ids.end(), 0);
    qmv_layout layout;
    layout.out_pad = std::size_t(*rc::gen::inRange(0, 5));
    const auto on_cpu = run_qmv(cpu_backend(), e, c, ids, layout);
    const auto on_gpu = run_qmv(gpu_backend(), e, c, ids, layout);
    RC_ASSERT(on_gpu.padding_intact);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(on_cpu.rows[std::size_t(s)], on_gpu.rows[std::size_t(s)]));
  });
}

TEST(QmvGpu, P1RowOrderEquivalenceOnDevice) {
  check_every_spec("P1-gpu", [](const qmv_entry& e) { p1_row_order_equivalence(gpu_backend(), e); });
}
TEST(QmvGpu, P2EqualsHostReplayOnDevice) {
  check_every_spec("P2-gpu", [](const qmv_entry& e) { p2_equals_host_replay(gpu_backend(), e); });
}
TEST(QmvGpu, P3PermutationInvarianceOnDevice) {
  check_every_spec("P3-gpu", [](const qmv_entry& e) { p3_permutation_invariance(gpu_backend(), e); });
}
TEST(QmvGpu, P4TailsAndPaddingOnDevice) {
  check_every_spec("P4-gpu", [](const qmv_entry& e) { p4_tails_and_padding(gpu_backend(), e); });
}

// The full DS4 matrices, including the 129280-row output head: GPU tier 8 == CPU tier 8 == GPU tier 1.
struct ds4_shape {
  const char* format;
  int n_out, k;
};
class QmvGpuDs4 : public ::testing::TestWithParam<ds4_shape> {};
TEST_P(QmvGpuDs4, FullShapeTier8MatchesCpuAndTier1) {
  const auto s = GetParam();
  const auto c = make_case(s.format, s.n_out, s.k / dot_elems_of(s.format), 8, 7);
  const auto& t8 = ordo::registry::find_qmv(s.format, 8, "ls32");
  const auto gpu8 = run_qmv(gpu_backend(), t8, c, {0, 1, 2, 3, 4, 5, 6, 7});
  const auto cpu8 = run_qmv(cpu_backend(), t8, c, {0, 1, 2, 3, 4, 5, 6, 7});
  ASSERT_TRUE(gpu8.padding_intact);
  for (int r = 0; r < 8; ++r) {
    EXPECT_TRUE(same_bits(gpu8.rows[std::size_t(r)], cpu8.rows[std::size_t(r)])) << "row " << r;
    const auto gpu1 = run_qmv(gpu_backend(), one_row_twin(t8), c, {r});
    EXPECT_TRUE(same_bits(gpu8.rows[std::size_t(r)], gpu1.rows[0])) << "row " << r;
  }
}
INSTANTIATE_TEST_SUITE_P(Ds4, QmvGpuDs4,
                         ::testing::Values(ds4_shape{"mxfp4", 2048, 4096}, ds4_shape{"mxfp4", 4096, 2048},
                                           ds4_shape{"q8_0", 32768, 1024}, ds4_shape{"q8_0", 129280, 4096},
                                           ds4_shape{"q4_k", 2048, 4096}, ds4_shape{"q2_k", 4096, 2048},
                                           ds4_shape{"iq2_xxs", 2048, 4096}));

}  // namespace

int main(int argc, char** argv) {
  if (gpu_device_count() == 0) {
    std::printf("SKIP: no GPU device (qmv GPU tests need one)\n");
    return 0;
  }
  std::printf("device: %s, %zu qmv specs\n", gpu_device_name().c_str(), ordo::registry::qmv_table.size());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
