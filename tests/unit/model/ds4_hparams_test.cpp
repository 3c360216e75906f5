// ds4_hparams: Flash values, validation messages, metadata round trip, --set parsing.
#include "ordo/model/ds4_hparams.hpp"

#include <gtest/gtest.h>

#include "fake_file.hpp"

namespace {

using namespace ordo::model;
using ordo::gguf::value;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(ds4_hparams, flash_schedule_matches_the_spec) {
  // ds4-model.md §1.1: 2 window layers, 21 ratio-4 layers (2,4,...,42), 20 ratio-128 layers.
  const ds4_hparams h = ds4_flash_hparams();
  ASSERT_EQ(h.compress_ratios.size(), 43u);
  int n0 = 0, n4 = 0, n128 = 0;
  for (uint32_t r : h.compress_ratios) (r == 0 ? n0 : r == 4 ? n4 : n128)++;
  EXPECT_EQ(n0, 2);
  EXPECT_EQ(n4, 21);
  EXPECT_EQ(n128, 20);
  EXPECT_EQ(h.compress_ratios[2], 4u);
  EXPECT_EQ(h.compress_ratios[3], 128u);
  EXPECT_EQ(h.compress_ratios[42], 4u);
  EXPECT_EQ(h.hc_dim(), 16384u);
  EXPECT_EQ(h.hc_mix(), 24u);
  EXPECT_EQ(h.q_dim(), 32768u);
  EXPECT_NO_THROW(validate(h));
}

TEST(ds4_hparams, validation_lists_every_problem) {
  ds4_hparams h = ds4_flash_hparams();
  h.compress_ratios[5] = 3;
  h.hc_count = 3;
  h.expert_gating_func = 2;
  h.n_expert_used = 300;
  const std::string msg = error_of([&] { validate(h); });
  EXPECT_NE(msg.find("attention.compress_ratios[5] = 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("hyper_connection.count = 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expert_gating_func = 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expert_used_count = 300"), std::string::npos) << msg;
}

TEST(ds4_hparams, metadata_round_trips_in_both_namings) {
  ds4_hparams h = ds4_flash_hparams();
  h.n_mtp = 1;
  for (ds4_naming n : {ds4_naming::ds4, ds4_naming::llama}) {
    test::fake_file f;
    for (auto& kv : ds4_metadata(h, n)) f.meta.emplace(kv.key, kv.val);
    // The llama.cpp convention counts the MTP block in block_count; ds4 does not.
    EXPECT_EQ(f.find("deepseek4.block_count")->as_u32(), n == ds4_naming::llama ? 44u : 43u);
    EXPECT_EQ(f.find("deepseek4.swiglu_clamp_exp")->items().size(), n == ds4_naming::llama ? 44u : 43u);
    EXPECT_EQ(f.find("deepseek4.expert_gating_func")->as_u32(), 4u);
    EXPECT_EQ(f.find("deepseek4.rope.scaling.type")->as_string(), "yarn");
    const ds4_hparams back = ds4_read_hparams(f, n, "m.gguf");
    EXPECT_EQ(back.n_layer, 43u);
    EXPECT_EQ(back.n_mtp, n == ds4_naming::llama ? 1u : 0u);
    EXPECT_EQ(back.compress_ratios, h.compress_ratios);
    EXPECT_EQ(back.swiglu_clamp_exp, h.swiglu_clamp_exp);
    EXPECT_EQ(back.n_embd, 4096u);
    EXPECT_EQ(back.indexer_top_k, 512u);
    EXPECT_DOUBLE_EQ(back.expert_weights_scale, 1.5);
    EXPECT_DOUBLE_EQ(back.compress_rope_freq_base, 160000.0);
  }
}

TEST(ds4_hparams, reading_accepts_other_integer_widths_and_names_missing_keys) {
  test::fake_file f;
  for (auto& kv : ds4_metadata(ds4_flash_hparams(), ds4_naming::ds4)) f.meta.emplace(kv.key, kv.val);
  f.meta["deepseek4.attention.compress_ratios"] = value::array_of(std::vector<uint32_t>(ds4_flash_ratios(43)));
  f.meta["deepseek4.rope.scaling.original_context_length"] = value::u64(65536);
  EXPECT_EQ(ds4_read_hparams(f, ds4_naming::ds4, "m.gguf").yarn_orig_ctx, 65536u);
  f.meta.erase("deepseek4.attention.q_lora_rank");
  EXPECT_EQ(error_of([&] { ds4_read_hparams(f, ds4_naming::ds4, "m.gguf"); }),
            "m.gguf: metadata key 'deepseek4.attention.q_lora_rank' is missing");
}

TEST(ds4_hparams, mtp_ratio_must_be_zero) {
  ds4_hparams h = ds4_flash_hparams();
  h.n_mtp = 1;
  test::fake_file f;
  for (auto& kv : ds4_metadata(h, ds4_naming::llama)) f.meta.emplace(kv.key, kv.val);
  std::vector<int32_t> r(h.compress_ratios.begin(), h.compress_ratios.end());
  r.push_back(4);
  f.meta["deepseek4.attention.compress_ratios"] = value::array_of(r);
  EXPECT_NE(error_of([&] { ds4_read_hparams(f, ds4_naming::llama, "m.gguf"); }).find("(the MTP block) must be 0"),
            std::string::npos);
}

TEST(ds4_hparams, set_overrides) {
  ds4_hparams h = ds4_flash_hparams();
  ds4_set_hparam(h, "block_count", "5");
  EXPECT_EQ(h.compress_ratios, (std::vector<uint32_t>{0, 0, 4, 128, 4}));
  EXPECT_EQ(h.swiglu_clamp_exp.size(), 5u);
  ds4_set_hparam(h, "attention.compress_ratios", "0,4,128,4,128");
  EXPECT_EQ(h.compress_ratios, (std::vector<uint32_t>{0, 4, 128, 4, 128}));
  ds4_set_hparam(h, "expert_count", "8");
  ds4_set_hparam(h, "expert_used_count", "3");
  ds4_set_hparam(h, "expert_weights_scale", "2.5");
  ds4_set_hparam(h, "expert_weights_norm", "false");
  EXPECT_EQ(h.n_expert, 8u);
  EXPECT_EQ(h.n_expert_used, 3u);
  EXPECT_DOUBLE_EQ(h.expert_weights_scale, 2.5);
  EXPECT_FALSE(h.expert_weights_norm);
  EXPECT_NO_THROW(validate(h));
  EXPECT_NE(error_of([&] { ds4_set_hparam(h, "expert_cout", "8"); }).find("unknown deepseek4 key"), std::string::npos);
  EXPECT_EQ(error_of([&] { ds4_set_hparam(h, "expert_count", "-1"); }),
            "--set expert_count=-1: expected an unsigned integer");
  EXPECT_EQ(error_of([&] { ds4_set_hparam(h, "attention.compress_ratios", "0,4,x"); }),
            "--set attention.compress_ratios=x: not a valid value for this key");
}

}  // namespace
