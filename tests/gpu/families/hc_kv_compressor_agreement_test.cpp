// The agreement sweeps of hc_kv_compressor_agreement.hpp (what the GPU test runs on the device),
// checked on the CPU build: fed the CPU executor's result with one output bit flipped
// (with_one_bit_flipped), every sweep reports a difference, so a GPU result that differs by one
// bit cannot pass; fed the CPU executor itself, none reports one (the NaN padding, sentinels and
// poisoned rows compare as bytes, not as floats, so equal runs never look different).
#include <gtest/gtest.h>

#include "hc_kv_compressor_agreement.hpp"

namespace {

using namespace ordo::test;
namespace ops = ordo::ops;
using gpu_agreement::with_one_bit_flipped;

TEST(HcKvCompressorAgreement, EverySweepDetectsOneFlippedOutputBit) {
  const auto hc = gpu_agreement::hc_sweep(with_one_bit_flipped<ops::hc::cpu_entry, ops::hc::problem>(hc::run_entry));
  EXPECT_NE(hc.first_difference, "");
  const auto kv = gpu_agreement::kv_store_sweep(
      with_one_bit_flipped<ops::kv_store::cpu_entry, ops::kv_store::problem>(kv_store::run_entry));
  EXPECT_NE(kv.first_difference, "");
  const auto store = with_one_bit_flipped<ops::compressor::store_entry, ops::compressor::store_problem>(
      compressor::run_store_entry);
  EXPECT_NE(gpu_agreement::compressor_store_sweep(store).first_difference, "");
  EXPECT_NE(gpu_agreement::compressor_emit_sweep(
                with_one_bit_flipped<ops::compressor::emit_entry, ops::compressor::emit_problem>(
                    compressor::run_emit_entry))
                .first_difference,
            "");
  EXPECT_NE(gpu_agreement::compressor_sequence_sweep(ops::compressor::emit_entries(), store).first_difference, "");
}

TEST(HcKvCompressorAgreement, EverySweepFindsTheCpuExecutorEqualToItself) {
  EXPECT_EQ(gpu_agreement::hc_sweep(hc::run_entry).first_difference, "");
  EXPECT_EQ(gpu_agreement::kv_store_sweep(kv_store::run_entry).first_difference, "");
  EXPECT_EQ(gpu_agreement::compressor_store_sweep(compressor::run_store_entry).first_difference, "");
  EXPECT_EQ(gpu_agreement::compressor_emit_sweep(compressor::run_emit_entry).first_difference, "");
  EXPECT_EQ(gpu_agreement::compressor_sequence_sweep(ops::compressor::emit_entries(), compressor::run_store_entry)
                .first_difference,
            "");
}

}  // namespace
