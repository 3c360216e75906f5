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

TEST(HcKvCompressorAgreement, EverySweepDetectsOneFlippedOutputBit) {
  EXPECT_EQ(gpu_agreement::flips_not_caught({kv_store::run_entry, compressor::run_store_entry,
                                             compressor::run_emit_entry, ops::compressor::emit_entries()}),
            "");
}

TEST(HcKvCompressorAgreement, EverySweepFindsTheCpuExecutorEqualToItself) {
  EXPECT_EQ(gpu_agreement::kv_store_sweep(kv_store::run_entry).first_difference, "");
  EXPECT_EQ(gpu_agreement::compressor_store_sweep(compressor::run_store_entry).first_difference, "");
  EXPECT_EQ(gpu_agreement::compressor_emit_sweep(compressor::run_emit_entry).first_difference, "");
  EXPECT_EQ(gpu_agreement::compressor_sequence_sweep(ops::compressor::emit_entries(), compressor::run_store_entry)
                .first_difference,
            "");
}

}  // namespace
