// qmv on the GPU at full DS4 shapes, every order and tier the preset ships for the format, every
// row: GPU tier t == CPU executor tier t (E2) and == GPU tier 1 (P1 on the device). Shapes with
// more than one shared-memory window per row (> window_blocks: 128 Q8_0 / 256 MXFP4 blocks on
// sm90) are included, and asserted to be multi-window, so that path is taken. The output head
// (129280 rows) runs at tiers 1, 8, 16 of ls32 only, to bound the CPU executor's time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "../../property/qmv/harness.hpp"
#include "device_backend.hpp"
#include "ordo/gpu/device_api.hpp"
#include "ordo/quant/random_block.hpp"
#include "ordo/registry/all_ops.hpp"

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
                      ds4_shape{"mxfp4 multi-window", "mxfp4", 1024, 32 * 613, true}));

// The shapes above include multi-window rows on this preset (so the window loop runs > once).
TEST(QmvGpuWindows, MultiWindowShapesAreMultiWindow) {
  EXPECT_GT(301, (ops::qmv::window_blocks<quant::q8_0, tune::preset::qmv::policy>));
  EXPECT_GT(613, (ops::qmv::window_blocks<quant::mxfp4, tune::preset::qmv::policy>));
}

// A qmv launch may overlap the kernel before it on the stream (tune/sm90.hpp streaming_overlap,
// ops/qmv/dependent_launch.hpp): its weights are requested before it waits, its activations must
// not be. Chain on one stream, as decode does: quantize fresh floats into ONE activation buffer,
// then qmv into step j's output, `steps` times with no host synchronization; every output must
// equal the same qmv run alone after a full device synchronization (no step may read the
// activations of another step, or a half-written buffer).
TEST(QmvGpuChain, EachLaunchReadsTheActivationsItsPredecessorWrote) {
  constexpr int n_out = 32768, k = 1024, steps = 12;
  for (int tier : {1, 8}) {
    const auto& e = registry::find_axes<ops::qmv::op>("q8_0", "r" + std::to_string(tier), "ls32");
    const auto& quantize = registry::find_axes<ops::quantize_rows::op>(e.info.activation);
    const std::size_t act_row_bytes = std::size_t(k / quantize.info.block_elems) * std::size_t(quantize.info.block_bytes);
    quant::splitmix64 rng{2024 + std::uint64_t(tier)};
    std::vector<std::byte> w(std::size_t(n_out) * (k / 32) * sizeof(quant::q8_0::block));
    auto* wb = reinterpret_cast<quant::q8_0::block*>(w.data());
    for (std::size_t i = 0; i < w.size() / sizeof(quant::q8_0::block); ++i) wb[i] = quant::random_block<quant::q8_0>(rng, 0.05f);
    std::vector<float> x(std::size_t(steps) * tier * k);
    for (auto& v : x) v = quant::uniform_pm1(rng) * std::ldexp(1.0f, int(rng() % 9) - 4);  // mixed magnitudes
    gpu::device_buffer<std::byte> dw(w.size()), acts(act_row_bytes * std::size_t(tier));
    gpu::device_buffer<float> dx(x.size()), out(std::size_t(steps) * tier * n_out), alone(std::size_t(tier) * n_out);
    dw.upload(w.data(), w.size());
    dx.upload(x.data(), x.size());
    gpu::device_memset(out.data(), 0xff, out.size() * sizeof(float));
    auto step = [&](int j, float* o, gpu::stream_t st) {
      quantize.launch_gpu({dx.data() + std::size_t(j) * tier * k, std::size_t(k), acts.data(), act_row_bytes, k, tier}, st);
      e.launch_gpu({dw.data(), w.size() / n_out, acts.data(), act_row_bytes, o, std::size_t(n_out), n_out, k, tier}, st);
    };
    ORDO_GPU_API(Stream_t) stream;
    ORDO_GPU_CHECK(ORDO_GPU_API(StreamCreateWithFlags)(&stream, ORDO_GPU_API(StreamNonBlocking)));
    for (int j = 0; j < steps; ++j) step(j, out.data() + std::size_t(j) * tier * n_out, stream);
    ORDO_GPU_CHECK(ORDO_GPU_API(StreamSynchronize)(stream));
    std::vector<float> chained(out.size()), ref(alone.size());
    out.download(chained.data(), chained.size());
    for (int j = 0; j < steps; ++j) {
      gpu::synchronize();
      step(j, alone.data(), nullptr);
      gpu::synchronize();
      alone.download(ref.data(), ref.size());
      EXPECT_EQ(0, std::memcmp(ref.data(), chained.data() + std::size_t(j) * tier * n_out, ref.size() * sizeof(float)))
          << e.name.view() << " step " << j;
    }
    ORDO_GPU_CHECK(ORDO_GPU_API(StreamDestroy)(stream));
  }
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
