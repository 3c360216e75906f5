// Name mapping: every HF transformers spelling folds into the upstream spelling, which maps to
// the GGUF names of ds4-model.md §2 (expected strings written from that table, not the code).
#include "convert/tensor_names.hpp"

#include <gtest/gtest.h>

namespace ordo::convert {
namespace {

struct row {
  const char* hf;        // HF transformers in-memory name
  const char* upstream;  // official / save_pretrained name
  const char* gguf;
  tensor_class cls;
};

const row kRows[] = {
    {"model.embed_tokens.weight", "embed.weight", "token_embd.weight", tensor_class::aux},
    {"lm_head.weight", "head.weight", "output.weight", tensor_class::dense},
    {"model.norm.weight", "norm.weight", "output_norm.weight", tensor_class::f32},
    {"model.hc_head.hc_fn", "hc_head_fn", "output_hc_fn.weight", tensor_class::aux},
    {"model.hc_head.hc_base", "hc_head_base", "output_hc_base.weight", tensor_class::f32},
    {"model.hc_head.hc_scale", "hc_head_scale", "output_hc_scale.weight", tensor_class::f32},
    {"model.layers.7.attn_hc.fn", "layers.7.hc_attn_fn", "blk.7.hc_attn_fn.weight", tensor_class::aux},
    {"model.layers.7.attn_hc.base", "layers.7.hc_attn_base", "blk.7.hc_attn_base.weight", tensor_class::f32},
    {"model.layers.7.attn_hc.scale", "layers.7.hc_attn_scale", "blk.7.hc_attn_scale.weight", tensor_class::f32},
    {"model.layers.7.ffn_hc.fn", "layers.7.hc_ffn_fn", "blk.7.hc_ffn_fn.weight", tensor_class::aux},
    {"model.layers.7.ffn_hc.base", "layers.7.hc_ffn_base", "blk.7.hc_ffn_base.weight", tensor_class::f32},
    {"model.layers.7.ffn_hc.scale", "layers.7.hc_ffn_scale", "blk.7.hc_ffn_scale.weight", tensor_class::f32},
    {"model.layers.7.input_layernorm.weight", "layers.7.attn_norm.weight", "blk.7.attn_norm.weight", tensor_class::f32},
    {"model.layers.7.post_attention_layernorm.weight", "layers.7.ffn_norm.weight", "blk.7.ffn_norm.weight",
     tensor_class::f32},
    {"model.layers.7.self_attn.q_a_proj.weight", "layers.7.attn.wq_a.weight", "blk.7.attn_q_a.weight",
     tensor_class::dense},
    {"model.layers.7.self_attn.q_a_norm.weight", "layers.7.attn.q_norm.weight", "blk.7.attn_q_a_norm.weight",
     tensor_class::f32},
    {"model.layers.7.self_attn.q_b_proj.weight", "layers.7.attn.wq_b.weight", "blk.7.attn_q_b.weight",
     tensor_class::dense},
    {"model.layers.7.self_attn.kv_proj.weight", "layers.7.attn.wkv.weight", "blk.7.attn_kv.weight",
     tensor_class::dense},
    {"model.layers.7.self_attn.kv_norm.weight", "layers.7.attn.kv_norm.weight", "blk.7.attn_kv_a_norm.weight",
     tensor_class::f32},
    {"model.layers.7.self_attn.sinks", "layers.7.attn.attn_sink", "blk.7.attn_sinks.weight", tensor_class::f32},
    {"model.layers.7.self_attn.o_a_proj.weight", "layers.7.attn.wo_a.weight", "blk.7.attn_output_a.weight",
     tensor_class::dense},
    {"model.layers.7.self_attn.o_b_proj.weight", "layers.7.attn.wo_b.weight", "blk.7.attn_output_b.weight",
     tensor_class::dense},
    {"model.layers.7.self_attn.compressor.position_bias", "layers.7.attn.compressor.ape",
     "blk.7.attn_compressor_ape.weight", tensor_class::aux},
    {"model.layers.7.self_attn.compressor.kv_proj.weight", "layers.7.attn.compressor.wkv.weight",
     "blk.7.attn_compressor_kv.weight", tensor_class::aux},
    {"model.layers.7.self_attn.compressor.gate_proj.weight", "layers.7.attn.compressor.wgate.weight",
     "blk.7.attn_compressor_gate.weight", tensor_class::aux},
    {"model.layers.7.self_attn.compressor.kv_norm.weight", "layers.7.attn.compressor.norm.weight",
     "blk.7.attn_compressor_norm.weight", tensor_class::f32},
    {"model.layers.7.self_attn.compressor.indexer.q_b_proj.weight", "layers.7.attn.indexer.wq_b.weight",
     "blk.7.indexer.attn_q_b.weight", tensor_class::aux},
    {"model.layers.7.self_attn.compressor.indexer.scorer.weights_proj.weight",
     "layers.7.attn.indexer.weights_proj.weight", "blk.7.indexer.proj.weight", tensor_class::aux},
    {"model.layers.7.self_attn.compressor.indexer.position_bias", "layers.7.attn.indexer.compressor.ape",
     "blk.7.indexer_compressor_ape.weight", tensor_class::aux},
    {"model.layers.7.self_attn.compressor.indexer.kv_proj.weight", "layers.7.attn.indexer.compressor.wkv.weight",
     "blk.7.indexer_compressor_kv.weight", tensor_class::aux},
    {"model.layers.7.self_attn.compressor.indexer.gate_proj.weight",
     "layers.7.attn.indexer.compressor.wgate.weight", "blk.7.indexer_compressor_gate.weight", tensor_class::aux},
    {"model.layers.7.self_attn.compressor.indexer.kv_norm.weight", "layers.7.attn.indexer.compressor.norm.weight",
     "blk.7.indexer_compressor_norm.weight", tensor_class::f32},
    {"model.layers.7.mlp.gate.weight", "layers.7.ffn.gate.weight", "blk.7.ffn_gate_inp.weight", tensor_class::aux},
    {"model.layers.7.mlp.gate.e_score_correction_bias", "layers.7.ffn.gate.bias", "blk.7.exp_probs_b.bias",
     tensor_class::f32},
    {"model.layers.7.mlp.gate.tid2eid", "layers.7.ffn.gate.tid2eid", "blk.7.ffn_gate_tid2eid.weight",
     tensor_class::i32},
    {"model.layers.7.mlp.shared_experts.gate_proj.weight", "layers.7.ffn.shared_experts.w1.weight",
     "blk.7.ffn_gate_shexp.weight", tensor_class::dense},
    {"model.layers.7.mlp.shared_experts.up_proj.weight", "layers.7.ffn.shared_experts.w3.weight",
     "blk.7.ffn_up_shexp.weight", tensor_class::dense},
    {"model.layers.7.mlp.shared_experts.down_proj.weight", "layers.7.ffn.shared_experts.w2.weight",
     "blk.7.ffn_down_shexp.weight", tensor_class::dense},
};

TEST(TensorNames, HfAndUpstreamSpellingsReachTheSameGgufName) {
  for (const auto& r : kRows) {
    EXPECT_EQ(canonical_name(r.hf), r.upstream) << r.hf;
    EXPECT_EQ(canonical_name(r.upstream), r.upstream) << "upstream names are already canonical: " << r.upstream;
    EXPECT_EQ(canonical_name(std::string("model.") + r.upstream), r.upstream) << r.upstream;
    const auto t = gguf_target_for(r.upstream);
    ASSERT_TRUE(t.has_value()) << r.upstream;
    EXPECT_EQ(t->name, r.gguf);
    EXPECT_EQ(t->cls, r.cls) << r.upstream;
  }
}

TEST(TensorNames, SavePretrainedKvNormSpelling) {
  // HF 5.17 save_pretrained (the committed HF fixtures) writes the kv norm as attn.norm.
  EXPECT_EQ(canonical_name("model.layers.0.attn.norm.weight"), "layers.0.attn.kv_norm.weight");
  EXPECT_EQ(gguf_target_for("layers.0.attn.kv_norm.weight")->name, "blk.0.attn_kv_a_norm.weight");
  EXPECT_EQ(canonical_name("layers.3.attn.compressor.norm.weight"), "layers.3.attn.compressor.norm.weight");
}

TEST(TensorNames, OlderHfIndexerSpellingAndFp8Scales) {
  EXPECT_EQ(canonical_name("model.layers.2.self_attn.compressor.indexer.weights_proj.weight"),
            "layers.2.attn.indexer.weights_proj.weight");
  EXPECT_EQ(canonical_name("model.layers.2.self_attn.q_b_proj.weight_scale_inv"), "layers.2.attn.wq_b.scale");
  EXPECT_EQ(canonical_name("layers.2.attn.wq_b.scale"), "layers.2.attn.wq_b.scale");
  EXPECT_EQ(scale_name_for("layers.2.attn.wq_b.weight"), "layers.2.attn.wq_b.scale");
  EXPECT_FALSE(scale_name_for("layers.2.attn.attn_sink").has_value());
  EXPECT_FALSE(gguf_target_for("layers.2.attn.wq_b.scale").has_value());
}

TEST(TensorNames, RoutedExperts) {
  const auto e = parse_expert_name("layers.12.ffn.experts.255.w3.weight");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->layer, 12);
  EXPECT_EQ(e->expert, 255);
  EXPECT_EQ(e->proj, expert_proj::up);
  EXPECT_FALSE(e->is_scale);
  const auto s = parse_expert_name(canonical_name("model.layers.0.mlp.experts.3.w2.scale"));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->proj, expert_proj::down);
  EXPECT_TRUE(s->is_scale);
  EXPECT_FALSE(parse_expert_name("layers.0.ffn.experts.01.w1.weight").has_value());  // no leading zeros
  EXPECT_FALSE(parse_expert_name("layers.0.ffn.experts.1.w4.weight").has_value());
  EXPECT_FALSE(parse_expert_name("layers.0.ffn.shared_experts.w1.weight").has_value());

  const auto f = parse_fused_expert_name(canonical_name("model.layers.5.mlp.experts.gate_up_proj"));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->layer, 5);
  EXPECT_TRUE(f->gate_up);
  EXPECT_FALSE(f->mtp);
  const auto d = parse_fused_expert_name(canonical_name("model.layers.5.mlp.experts.down_proj"));
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->gate_up);

  EXPECT_EQ(routed_gguf_name(5, expert_proj::gate), "blk.5.ffn_gate_exps.weight");
  EXPECT_EQ(routed_gguf_name(5, expert_proj::up), "blk.5.ffn_up_exps.weight");
  EXPECT_EQ(routed_gguf_name(5, expert_proj::down), "blk.5.ffn_down_exps.weight");
}

TEST(TensorNames, MtpBlockInHfModuleSpelling) {
  EXPECT_EQ(canonical_name("mtp.0.self_attn.q_a_proj.weight"), "mtp.0.attn.wq_a.weight");
  EXPECT_EQ(canonical_name("mtp.0.attn_hc.fn"), "mtp.0.hc_attn_fn");
  EXPECT_EQ(canonical_name("mtp.0.mlp.gate.e_score_correction_bias"), "mtp.0.ffn.gate.bias");
  EXPECT_EQ(canonical_name("mtp.0.hc_head.hc_fn"), "mtp.0.hc_head_fn");
  EXPECT_EQ(canonical_name("mtp.0.hc_head.hc_scale"), "mtp.0.hc_head_scale");
  // The MTP block's own tensors and upstream spellings pass unchanged.
  EXPECT_EQ(canonical_name("mtp.0.e_proj.weight"), "mtp.0.e_proj.weight");
  EXPECT_EQ(canonical_name("mtp.0.norm.weight"), "mtp.0.norm.weight");
  EXPECT_EQ(canonical_name("mtp.0.attn.wq_a.weight"), "mtp.0.attn.wq_a.weight");
  EXPECT_EQ(canonical_name("mtp.0.hc_head_fn"), "mtp.0.hc_head_fn");
  // The main model's output HC head is not the MTP block's.
  EXPECT_EQ(canonical_name("model.hc_head.hc_fn"), "hc_head_fn");
  const auto f = parse_fused_expert_name(canonical_name("mtp.0.mlp.experts.gate_up_proj"));
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->mtp);
  EXPECT_TRUE(f->gate_up);
  const auto d = parse_fused_expert_name(canonical_name("mtp.0.mlp.experts.down_proj"));
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->mtp);
  EXPECT_FALSE(d->gate_up);
  EXPECT_FALSE(parse_fused_expert_name("mtp.1.ffn.experts.down_proj").has_value());
}

TEST(TensorNames, UnknownNamesPassThroughAndMapToNothing) {
  EXPECT_EQ(canonical_name("layers.0.attn.rotary.inv_freq"), "layers.0.attn.rotary.inv_freq");
  EXPECT_FALSE(gguf_target_for("layers.0.attn.rotary.inv_freq").has_value());
  EXPECT_FALSE(gguf_target_for("layer.0.attn.wq_a.weight").has_value());
  EXPECT_TRUE(is_mtp_name(canonical_name("mtp.0.e_proj.weight")));
  EXPECT_FALSE(is_mtp_name("layers.0.attn.wq_a.weight"));
}

}  // namespace
}  // namespace ordo::convert
