// E2 for the op families kv_store and compressor (hc: tests/gpu/props): every spec's GPU bits equal the CPU
// executor's (hc_kv_compressor_agreement.hpp's sweeps: full and partial tiers, padded strides,
// poisoned rows, ring wrap; the padding, other ring slots and inputs must survive on the device
// copy too), and the compressor's chronological multi-pass sequence — stores and emits on the
// GPU — equals the CPU's. The same sweeps fed the GPU result with one bit flipped must fail, so a
// differing device result cannot pass. Skips (CTest "Skipped") where no GPU is present.
#include <gtest/gtest.h>

#include <cstdio>

#include "hc_kv_compressor_agreement.hpp"
#include "hc_kv_compressor_gpu_runners.hpp"

namespace {

using namespace ordo::test;
namespace ops = ordo::ops;

class HcKvCompressorGpu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (gpu_runners::gpu_count() > 0) std::printf("device: %s\n", gpu_runners::gpu_name().c_str());
  }
  void SetUp() override {
    if (gpu_runners::gpu_count() == 0) GTEST_SKIP() << "no GPU device (the kv_store/compressor GPU tests need one)";
  }
};

void expect_agreement(const char* what, const gpu_agreement::sweep_result& r, std::size_t specs) {
  EXPECT_EQ(r.first_difference, "") << what << ": the GPU differs from the CPU executor after " << r.runs << " equal runs";
  if (r.first_difference.empty())
    std::printf("%s: %d GPU runs over %zu specs, all equal to the CPU executor\n", what, r.runs, specs);
}

TEST_F(HcKvCompressorGpu, KvStoreEverySpecMatchesCpuExecutor) {
  expect_agreement("kv_store", gpu_agreement::kv_store_sweep(gpu_runners::kv_store), ops::kv_store::cpu_entries().size());
}

TEST_F(HcKvCompressorGpu, CompressorStoreEverySpecMatchesCpuExecutor) {
  expect_agreement("compressor store", gpu_agreement::compressor_store_sweep(gpu_runners::compressor_store),
                   ops::compressor::store_entries().size());
}

TEST_F(HcKvCompressorGpu, CompressorEmitEverySpecMatchesCpuExecutor) {
  expect_agreement("compressor emit", gpu_agreement::compressor_emit_sweep(gpu_runners::compressor_emit(4)),
                   ops::compressor::emit_entries().size());
}

TEST_F(HcKvCompressorGpu, CompressorSequenceOnTheGpuMatchesCpuSequence) {
  expect_agreement("compressor sequence",
                   gpu_agreement::compressor_sequence_sweep(gpu_runners::compressor_device_emit_entries(),
                                                            gpu_runners::compressor_store),
                   ops::compressor::emit_entries().size());
}

/// The device result with one bit flipped after it came back: every sweep must report it.
TEST_F(HcKvCompressorGpu, AFlippedBitOfTheDeviceResultIsDetected) {
  EXPECT_EQ(gpu_agreement::flips_not_caught({gpu_runners::kv_store, gpu_runners::compressor_store,
                                             gpu_runners::compressor_emit(4),
                                             gpu_runners::compressor_device_emit_entries()}),
            "");
}

}  // namespace
