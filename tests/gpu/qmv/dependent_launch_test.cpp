// ops/qmv/dependent_launch.hpp on the device: qmv launches that overlap the kernel before them on
// the stream read the activations that kernel wrote and write after it (linked into qmv_gpu_test;
// compiled as device code for the stream and buffer API).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/quant/random_block.hpp"
#include "ordo/registry/all_ops.hpp"

namespace {

using namespace ordo;

// A qmv launch may overlap the kernel before it on the stream (tune/sm90.hpp streaming_overlap,
// ops/qmv/dependent_launch.hpp): its weights are requested before it waits, its activations must
// not be. Chain on one stream, as decode does: quantize fresh floats into ONE activation buffer,
// then qmv into step j's output, `steps` times with no host synchronization; every output must
// equal the same qmv run alone after a full device synchronization (no step may read the
// activations of another step, or a half-written buffer). Then two qmv launches back to back
// into ONE output (different weights, the second may start while the first still runs): the
// output must be the second's alone (its writes wait for the first to complete).
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
    // Write after write: weights w then w shifted by 7 rows (another matrix), into one output.
    const auto qmv_into = [&](const std::byte* weights, float* o, gpu::stream_t st) {
      e.launch_gpu({weights, w.size() / n_out, acts.data(), act_row_bytes, o, std::size_t(n_out), n_out - 7, k, tier}, st);
    };
    const std::byte* shifted = dw.data() + 7 * (w.size() / n_out);
    gpu::synchronize();
    for (int rep = 0; rep < 4; ++rep) {
      qmv_into(dw.data(), out.data(), stream);
      qmv_into(shifted, out.data(), stream);
    }
    ORDO_GPU_CHECK(ORDO_GPU_API(StreamSynchronize)(stream));
    qmv_into(shifted, alone.data(), nullptr);
    gpu::synchronize();
    out.download(chained.data(), ref.size());
    alone.download(ref.data(), ref.size());
    for (int i = 0; i < tier; ++i)
      EXPECT_EQ(0, std::memcmp(ref.data() + std::size_t(i) * n_out, chained.data() + std::size_t(i) * n_out,
                               std::size_t(n_out - 7) * sizeof(float)))
          << e.name.view() << " write after write, row " << i;
    ORDO_GPU_CHECK(ORDO_GPU_API(StreamDestroy)(stream));
  }
}

}  // namespace
