// The tensor map against counts and shapes worked out by hand from ds4-model.md §2 and the
// tensor list of antirez/ds4's MTP sidecar (32 tensors).
#include "ordo/model/ds4_tensor_map.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace {

using namespace ordo::model;
using dims = std::vector<uint64_t>;

std::map<std::string, ds4_tensor_spec> by_name(const std::vector<ds4_tensor_spec>& specs) {
  std::map<std::string, ds4_tensor_spec> m;
  for (const auto& s : specs) EXPECT_TRUE(m.emplace(s.name, s).second) << "duplicate " << s.name;
  return m;
}

TEST(ds4_tensor_map, flash_tensor_count) {
  // 6 globals; per layer 23 always-present tensors (12 attention + HC, 11 FFN + HC); selection
  // bias on the 40 routed layers; tid2eid on the 3 hash layers; 4 compressor tensors on 41 compressed layers; 6 indexer
  // tensors on 21 ratio-4 layers.
  const auto specs = ds4_tensor_specs(ds4_flash_hparams(), ds4_naming::ds4);
  EXPECT_EQ(specs.size(), 6u + 23 * 43 + 40 + 3 + 4 * 41 + 6 * 21);
  EXPECT_EQ(by_name(specs).size(), specs.size());
}

TEST(ds4_tensor_map, flash_shapes) {
  const auto m = by_name(ds4_tensor_specs(ds4_flash_hparams(), ds4_naming::ds4));
  EXPECT_EQ(m.at("token_embd.weight").dims, (dims{4096, 129280}));
  EXPECT_EQ(m.at("output_hc_fn.weight").dims, (dims{16384, 4}));
  EXPECT_EQ(m.at("blk.0.hc_attn_fn.weight").dims, (dims{16384, 24}));
  EXPECT_EQ(m.at("blk.0.attn_q_b.weight").dims, (dims{1024, 32768}));
  EXPECT_EQ(m.at("blk.0.attn_output_a.weight").dims, (dims{4096, 8192}));
  EXPECT_EQ(m.at("blk.0.attn_output_b.weight").dims, (dims{8192, 4096}));
  EXPECT_EQ(m.at("blk.2.attn_compressor_ape.weight").dims, (dims{1024, 4}));
  EXPECT_EQ(m.at("blk.3.attn_compressor_ape.weight").dims, (dims{512, 128}));
  EXPECT_EQ(m.at("blk.3.attn_compressor_kv.weight").dims, (dims{4096, 512}));
  EXPECT_EQ(m.at("blk.2.indexer.attn_q_b.weight").dims, (dims{1024, 8192}));
  EXPECT_EQ(m.at("blk.2.indexer.proj.weight").dims, (dims{4096, 64}));
  EXPECT_EQ(m.at("blk.2.indexer_compressor_ape.weight").dims, (dims{256, 4}));
  EXPECT_EQ(m.at("blk.2.indexer_compressor_norm.weight").dims, (dims{128}));
  EXPECT_EQ(m.at("blk.1.ffn_gate_tid2eid.weight").dims, (dims{6, 129280}));
  EXPECT_EQ(m.at("blk.10.ffn_gate_exps.weight").dims, (dims{4096, 2048, 256}));
  EXPECT_EQ(m.at("blk.10.ffn_down_exps.weight").dims, (dims{2048, 4096, 256}));
  EXPECT_EQ(m.at("blk.10.exp_probs_b.bias").dims, (dims{256}));
  EXPECT_FALSE(m.count("blk.0.attn_compressor_kv.weight"));  // ratio 0
  EXPECT_FALSE(m.count("blk.3.indexer.proj.weight"));        // ratio 128
  EXPECT_FALSE(m.count("blk.2.exp_probs_b.bias"));            // hash layer
  EXPECT_FALSE(m.count("blk.3.ffn_gate_tid2eid.weight"));
  // 277.0 B routed-expert parameters (ds4-model.md §1).
  uint64_t routed = 0;
  for (const auto& [name, s] : m)
    if (s.type_class == ds4_type_class::expert) routed += s.dims[0] * s.dims[1] * s.dims[2];
  EXPECT_EQ(routed, 43ull * 256 * 3 * 4096 * 2048);
}

TEST(ds4_tensor_map, ds4_mtp_sidecar_has_the_32_shipped_tensors) {
  ds4_hparams h = ds4_flash_hparams();
  h.n_mtp = 1;
  const auto side = by_name(ds4_tensor_specs(h, ds4_naming::ds4, ds4_file_part::mtp_sidecar));
  const std::set<std::string> expected = {
      "mtp.0.hc_head_base.weight", "mtp.0.hc_head_fn.weight", "mtp.0.hc_head_scale.weight", "mtp.0.e_proj.weight",
      "mtp.0.h_proj.weight", "mtp.0.enorm.weight", "mtp.0.hnorm.weight", "mtp.0.norm.weight",
      "mtp.0.hc_attn_fn.weight", "mtp.0.hc_attn_scale.weight", "mtp.0.hc_attn_base.weight", "mtp.0.attn_norm.weight",
      "mtp.0.attn_q_a.weight", "mtp.0.attn_q_a_norm.weight", "mtp.0.attn_q_b.weight", "mtp.0.attn_kv.weight",
      "mtp.0.attn_kv_a_norm.weight", "mtp.0.attn_sinks.weight", "mtp.0.attn_output_a.weight",
      "mtp.0.attn_output_b.weight", "mtp.0.hc_ffn_fn.weight", "mtp.0.hc_ffn_scale.weight", "mtp.0.hc_ffn_base.weight",
      "mtp.0.ffn_norm.weight", "mtp.0.ffn_gate_inp.weight", "mtp.0.exp_probs_b.bias", "mtp.0.ffn_gate_exps.weight",
      "mtp.0.ffn_up_exps.weight", "mtp.0.ffn_down_exps.weight", "mtp.0.ffn_gate_shexp.weight",
      "mtp.0.ffn_up_shexp.weight", "mtp.0.ffn_down_shexp.weight"};
  std::set<std::string> got;
  for (const auto& [name, s] : side) got.insert(name);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(side.at("mtp.0.e_proj.weight").dims, (dims{4096, 4096}));
  // The main ds4 file does not carry the MTP block.
  for (const auto& s : ds4_tensor_specs(h, ds4_naming::ds4)) EXPECT_EQ(s.name.rfind("mtp.", 0), std::string::npos);
}

TEST(ds4_tensor_map, llama_mtp_block_is_the_last_block) {
  ds4_hparams h = ds4_flash_hparams();
  h.n_mtp = 1;
  const auto m = by_name(ds4_tensor_specs(h, ds4_naming::llama));
  EXPECT_EQ(m.at("blk.43.nextn.eh_proj.weight").dims, (dims{8192, 4096}));
  EXPECT_TRUE(m.count("blk.43.nextn.enorm.weight"));
  EXPECT_TRUE(m.count("blk.43.nextn.hnorm.weight"));
  EXPECT_FALSE(m.at("blk.43.nextn.shared_head_norm.weight").required);  // llama.cpp falls back to output_norm
  EXPECT_TRUE(m.at("blk.43.exp_probs_b.bias").required);
  EXPECT_FALSE(m.count("blk.43.attn_compressor_kv.weight"));  // the MTP block is window-only
  EXPECT_FALSE(m.count("blk.43.hc_head_fn.weight"));         // reuses output_hc_*
  EXPECT_EQ(m.size(), ds4_tensor_specs(ds4_flash_hparams(), ds4_naming::llama).size() + 23 + 1 + 4);
}

TEST(ds4_tensor_map, selection_bias_is_optional_for_ds4_and_required_for_llama) {
  const ds4_hparams h = ds4_flash_hparams();
  for (const auto& s : ds4_tensor_specs(h, ds4_naming::ds4))
    if (s.role == ds4_role::exp_probs_b) EXPECT_FALSE(s.required) << s.name;
  for (const auto& s : ds4_tensor_specs(h, ds4_naming::llama))
    if (s.role == ds4_role::exp_probs_b) EXPECT_TRUE(s.required) << s.name;
}

}  // namespace
