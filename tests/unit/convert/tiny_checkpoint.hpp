/// A tiny DS4-shaped checkpoint written three ways (official FP8/FP4 release layout, HF
/// transformers in-memory names with fused experts, save_pretrained upstream names in F32), plus
/// an independent decoder of every source tensor to floats, so the conversion tests can compare
/// each GGUF tensor with what its source means. Names and shapes here are written from
/// ds4-model.md §2 and HF's DeepseekV4 modules, not taken from the converter.
#pragma once

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "st_fixture.hpp"

namespace ordo::convert::testing {

// Dims: hidden 256, vocab 512 (room for the byte vocabulary), 4 layers with compress ratios [0, 0, 4, 128], 2 heads × 128 (64
// rotary), q_lora 96 (a partial 128-block for FP8 scales), 2 output groups × 32, 4 experts of width
// 64 (top-2), 1 shared expert, 1 hash layer, indexer 2 heads × 128, 4 HC streams. Small, but
// within what the ordo engine accepts (model::validate), so open_ds4 can check the result.
struct tiny_dims {
  int H = 256, V = 512, L = 4, nh = 2, hd = 128, rot = 64, ql = 96, og = 2, ol = 32, E = 4, used = 2, I = 64;
  int ih = 2, id = 128, hc = 4, hash = 1;
  std::vector<int> ratios = {0, 0, 4, 128};
};

enum class src_kind { fp8, bf16, f32, fp4, i64 };

/// One weight: its upstream name, GGUF name, torch shape and how the official release stores it.
struct weight_spec {
  std::string upstream;
  std::string gguf;  // for experts: the stacked tensor's name
  std::vector<std::int64_t> shape;
  src_kind official;
  int expert = -1;   // routed expert index, -1 otherwise
  std::string proj;  // "w1" / "w2" / "w3" for experts
};

inline std::vector<weight_spec> tiny_weights(const tiny_dims& d) {
  using S = std::vector<std::int64_t>;
  const std::int64_t mix = (2 + d.hc) * d.hc, hcd = d.hc * d.H;
  std::vector<weight_spec> w = {
      {"embed.weight", "token_embd.weight", S{d.V, d.H}, src_kind::bf16},
      {"head.weight", "output.weight", S{d.V, d.H}, src_kind::bf16},
      {"norm.weight", "output_norm.weight", S{d.H}, src_kind::f32},
      {"hc_head_fn", "output_hc_fn.weight", S{d.hc, hcd}, src_kind::f32},
      {"hc_head_base", "output_hc_base.weight", S{d.hc}, src_kind::f32},
      {"hc_head_scale", "output_hc_scale.weight", S{1}, src_kind::f32},
  };
  for (int L = 0; L < d.L; ++L) {
    const auto u = [&](const char* s) { return "layers." + std::to_string(L) + "." + s; };
    const auto g = [&](const char* s) { return "blk." + std::to_string(L) + "." + s; };
    const std::int64_t r = d.ratios[L], coff = r == 4 ? 2 : 1;
    const std::vector<weight_spec> layer = {
        {u("hc_attn_fn"), g("hc_attn_fn.weight"), S{mix, hcd}, src_kind::f32},
        {u("hc_attn_base"), g("hc_attn_base.weight"), S{mix}, src_kind::f32},
        {u("hc_attn_scale"), g("hc_attn_scale.weight"), S{3}, src_kind::f32},
        {u("hc_ffn_fn"), g("hc_ffn_fn.weight"), S{mix, hcd}, src_kind::f32},
        {u("hc_ffn_base"), g("hc_ffn_base.weight"), S{mix}, src_kind::f32},
        {u("hc_ffn_scale"), g("hc_ffn_scale.weight"), S{3}, src_kind::f32},
        {u("attn_norm.weight"), g("attn_norm.weight"), S{d.H}, src_kind::bf16},
        {u("ffn_norm.weight"), g("ffn_norm.weight"), S{d.H}, src_kind::bf16},
        {u("attn.wq_a.weight"), g("attn_q_a.weight"), S{d.ql, d.H}, src_kind::fp8},
        {u("attn.q_norm.weight"), g("attn_q_a_norm.weight"), S{d.ql}, src_kind::bf16},
        {u("attn.wq_b.weight"), g("attn_q_b.weight"), S{d.nh * d.hd, d.ql}, src_kind::fp8},
        {u("attn.wkv.weight"), g("attn_kv.weight"), S{d.hd, d.H}, src_kind::fp8},
        {u("attn.kv_norm.weight"), g("attn_kv_a_norm.weight"), S{d.hd}, src_kind::bf16},
        {u("attn.attn_sink"), g("attn_sinks.weight"), S{d.nh}, src_kind::f32},
        {u("attn.wo_a.weight"), g("attn_output_a.weight"), S{d.og * d.ol, d.nh * d.hd / d.og}, src_kind::fp8},
        {u("attn.wo_b.weight"), g("attn_output_b.weight"), S{d.H, d.og * d.ol}, src_kind::fp8},
        {u("ffn.gate.weight"), g("ffn_gate_inp.weight"), S{d.E, d.H}, src_kind::bf16},
        {u("ffn.shared_experts.w1.weight"), g("ffn_gate_shexp.weight"), S{d.I, d.H}, src_kind::fp8},
        {u("ffn.shared_experts.w3.weight"), g("ffn_up_shexp.weight"), S{d.I, d.H}, src_kind::fp8},
        {u("ffn.shared_experts.w2.weight"), g("ffn_down_shexp.weight"), S{d.H, d.I}, src_kind::fp8},
    };
    w.insert(w.end(), layer.begin(), layer.end());
    if (L < d.hash) w.push_back({u("ffn.gate.tid2eid"), g("ffn_gate_tid2eid.weight"), S{d.V, d.used}, src_kind::i64});
    else w.push_back({u("ffn.gate.bias"), g("exp_probs_b.bias"), S{d.E}, src_kind::f32});
    if (r != 0) {
      w.push_back({u("attn.compressor.ape"), g("attn_compressor_ape.weight"), S{r, coff * d.hd}, src_kind::f32});
      w.push_back({u("attn.compressor.wkv.weight"), g("attn_compressor_kv.weight"), S{coff * d.hd, d.H}, src_kind::bf16});
      w.push_back({u("attn.compressor.wgate.weight"), g("attn_compressor_gate.weight"), S{coff * d.hd, d.H}, src_kind::bf16});
      w.push_back({u("attn.compressor.norm.weight"), g("attn_compressor_norm.weight"), S{d.hd}, src_kind::bf16});
    }
    if (r == 4) {
      w.push_back({u("attn.indexer.wq_b.weight"), g("indexer.attn_q_b.weight"), S{d.ih * d.id, d.ql}, src_kind::fp8});
      w.push_back({u("attn.indexer.weights_proj.weight"), g("indexer.proj.weight"), S{d.ih, d.H}, src_kind::bf16});
      w.push_back({u("attn.indexer.compressor.ape"), g("indexer_compressor_ape.weight"), S{r, 2 * d.id}, src_kind::f32});
      w.push_back({u("attn.indexer.compressor.wkv.weight"), g("indexer_compressor_kv.weight"), S{2 * d.id, d.H}, src_kind::bf16});
      w.push_back({u("attn.indexer.compressor.wgate.weight"), g("indexer_compressor_gate.weight"), S{2 * d.id, d.H}, src_kind::bf16});
      w.push_back({u("attn.indexer.compressor.norm.weight"), g("indexer_compressor_norm.weight"), S{d.id}, src_kind::bf16});
    }
    for (int e = 0; e < d.E; ++e) {
      const auto ex = [&](const char* p) { return u("ffn.experts.") + std::to_string(e) + "." + p + ".weight"; };
      w.push_back({ex("w1"), g("ffn_gate_exps.weight"), S{d.I, d.H}, src_kind::fp4, e, "w1"});
      w.push_back({ex("w3"), g("ffn_up_exps.weight"), S{d.I, d.H}, src_kind::fp4, e, "w3"});
      w.push_back({ex("w2"), g("ffn_down_exps.weight"), S{d.H, d.I}, src_kind::fp4, e, "w2"});
    }
  }
  return w;
}

/// The MTP block of the official release (`mtp.0.*`): its own projections, norms and output HC
/// head, plus the tensors of a ratio-0, top-k routed layer (the ones of layer 1, renamed), which
/// ds4's MTP sidecar names `mtp.0.<block suffix>`.
inline std::vector<weight_spec> tiny_mtp_weights(const tiny_dims& d) {
  using S = std::vector<std::int64_t>;
  std::vector<weight_spec> w = {
      {"mtp.0.e_proj.weight", "mtp.0.e_proj.weight", S{d.H, d.H}, src_kind::fp8},
      {"mtp.0.h_proj.weight", "mtp.0.h_proj.weight", S{d.H, d.H}, src_kind::fp8},
      {"mtp.0.enorm.weight", "mtp.0.enorm.weight", S{d.H}, src_kind::bf16},
      {"mtp.0.hnorm.weight", "mtp.0.hnorm.weight", S{d.H}, src_kind::bf16},
      {"mtp.0.norm.weight", "mtp.0.norm.weight", S{d.H}, src_kind::bf16},
      {"mtp.0.hc_head_fn", "mtp.0.hc_head_fn.weight", S{d.hc, d.hc * d.H}, src_kind::f32},
      {"mtp.0.hc_head_base", "mtp.0.hc_head_base.weight", S{d.hc}, src_kind::f32},
      {"mtp.0.hc_head_scale", "mtp.0.hc_head_scale.weight", S{1}, src_kind::f32},
  };
  for (auto x : tiny_weights(d)) {
    if (x.upstream.rfind("layers.1.", 0) != 0) continue;
    x.upstream = "mtp.0." + x.upstream.substr(9);
    x.gguf = "mtp.0." + x.gguf.substr(6);
    w.push_back(x);
  }
  return w;
}

/// HF transformers' in-memory name of a non-expert upstream name (HF conversion mapping, reversed).
/// MTP tensors (HF has no MTP module) get the names a torch MTP block built from HF's parts saves:
/// `mtp.0.` + the HF name of its layer's module, `mtp.0.hc_head.hc_fn`, and `mtp.0.e_proj.weight`
/// etc. unchanged (models/tiny-ds4/train.py writes these).
inline std::string hf_name(const std::string& upstream) {
  static const std::map<std::string, std::string> global = {
      {"embed.weight", "model.embed_tokens.weight"}, {"head.weight", "lm_head.weight"},
      {"norm.weight", "model.norm.weight"},          {"hc_head_fn", "model.hc_head.hc_fn"},
      {"hc_head_base", "model.hc_head.hc_base"},     {"hc_head_scale", "model.hc_head.hc_scale"}};
  static const std::map<std::string, std::string> layer = {
      {"hc_attn_fn", "attn_hc.fn"}, {"hc_attn_base", "attn_hc.base"}, {"hc_attn_scale", "attn_hc.scale"},
      {"hc_ffn_fn", "ffn_hc.fn"}, {"hc_ffn_base", "ffn_hc.base"}, {"hc_ffn_scale", "ffn_hc.scale"},
      {"attn_norm.weight", "input_layernorm.weight"}, {"ffn_norm.weight", "post_attention_layernorm.weight"},
      {"attn.wq_a.weight", "self_attn.q_a_proj.weight"}, {"attn.q_norm.weight", "self_attn.q_a_norm.weight"},
      {"attn.wq_b.weight", "self_attn.q_b_proj.weight"}, {"attn.wkv.weight", "self_attn.kv_proj.weight"},
      {"attn.kv_norm.weight", "self_attn.kv_norm.weight"}, {"attn.attn_sink", "self_attn.sinks"},
      {"attn.wo_a.weight", "self_attn.o_a_proj.weight"}, {"attn.wo_b.weight", "self_attn.o_b_proj.weight"},
      {"ffn.gate.weight", "mlp.gate.weight"}, {"ffn.gate.bias", "mlp.gate.e_score_correction_bias"},
      {"ffn.gate.tid2eid", "mlp.gate.tid2eid"},
      {"ffn.shared_experts.w1.weight", "mlp.shared_experts.gate_proj.weight"},
      {"ffn.shared_experts.w3.weight", "mlp.shared_experts.up_proj.weight"},
      {"ffn.shared_experts.w2.weight", "mlp.shared_experts.down_proj.weight"},
      {"attn.compressor.ape", "self_attn.compressor.position_bias"},
      {"attn.compressor.wkv.weight", "self_attn.compressor.kv_proj.weight"},
      {"attn.compressor.wgate.weight", "self_attn.compressor.gate_proj.weight"},
      {"attn.compressor.norm.weight", "self_attn.compressor.kv_norm.weight"},
      {"attn.indexer.wq_b.weight", "self_attn.compressor.indexer.q_b_proj.weight"},
      {"attn.indexer.weights_proj.weight", "self_attn.compressor.indexer.scorer.weights_proj.weight"},
      {"attn.indexer.compressor.ape", "self_attn.compressor.indexer.position_bias"},
      {"attn.indexer.compressor.wkv.weight", "self_attn.compressor.indexer.kv_proj.weight"},
      {"attn.indexer.compressor.wgate.weight", "self_attn.compressor.indexer.gate_proj.weight"},
      {"attn.indexer.compressor.norm.weight", "self_attn.compressor.indexer.kv_norm.weight"}};
  if (const auto it = global.find(upstream); it != global.end()) return it->second;
  if (upstream.rfind("mtp.0.", 0) == 0) {
    static const std::map<std::string, std::string> mtp_head = {
        {"hc_head_fn", "hc_head.hc_fn"}, {"hc_head_base", "hc_head.hc_base"}, {"hc_head_scale", "hc_head.hc_scale"}};
    const std::string rest = upstream.substr(6);
    if (const auto it = mtp_head.find(rest); it != mtp_head.end()) return "mtp.0." + it->second;
    if (const auto it = layer.find(rest); it != layer.end()) return "mtp.0." + it->second;
    return upstream;
  }
  const auto dot = upstream.find('.', 7);
  const std::string prefix = "model." + upstream.substr(0, dot + 1);
  return prefix + layer.at(upstream.substr(dot + 1));
}

/// The raw bytes of one weight (and its scale for FP8/FP4) as the official release stores it.
struct official_tensor {
  std::vector<std::byte> data;
  std::vector<std::byte> scale;  // FP8: [ceil(out/128), ceil(in/128)] E8M0; FP4: [out, in/32] E8M0
};

inline std::vector<std::int64_t> fp8_scale_shape(const std::vector<std::int64_t>& s) {
  return {(s[0] + 127) / 128, (s[1] + 127) / 128};
}

inline official_tensor make_official(std::mt19937& rng, const weight_spec& w, int n_expert) {
  std::int64_t n = 1;
  for (auto x : w.shape) n *= x;
  official_tensor t;
  std::uniform_int_distribution<int> byte(0, 255), sc(112, 132), sc4(100, 140), ex(0, n_expert - 1);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  switch (w.official) {
    case src_kind::fp8: {
      t.data = random_bytes(rng, static_cast<std::size_t>(n));
      const auto ss = fp8_scale_shape(w.shape);
      for (std::int64_t i = 0; i < ss[0] * ss[1]; ++i) t.scale.push_back(static_cast<std::byte>(sc(rng)));
      break;
    }
    case src_kind::fp4:
      t.data = random_bytes(rng, static_cast<std::size_t>(n / 2));
      for (std::int64_t i = 0; i < n / 32; ++i) t.scale.push_back(static_cast<std::byte>(sc4(rng)));
      break;
    case src_kind::bf16: {
      std::vector<std::uint16_t> v(static_cast<std::size_t>(n));
      for (auto& x : v) {
        const float f = std::ldexp(nd(rng), byte(rng) % 8 - 6);
        std::uint32_t u;
        std::memcpy(&u, &f, 4);
        x = static_cast<std::uint16_t>(u >> 16);
      }
      t.data = bytes_of(v);
      break;
    }
    case src_kind::f32: {
      std::vector<float> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = std::ldexp(nd(rng), byte(rng) % 8 - 6);
      t.data = bytes_of(v);
      break;
    }
    case src_kind::i64: {
      std::vector<std::int64_t> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = ex(rng);
      t.data = bytes_of(v);
      break;
    }
  }
  return t;
}

/// What the official bytes mean, decoded here independently (ds4-model §8.5).
inline std::vector<float> decode_official(const weight_spec& w, const official_tensor& t) {
  std::int64_t n = 1;
  for (auto x : w.shape) n *= x;
  std::vector<float> out(static_cast<std::size_t>(n));
  const auto e8m0 = [](std::byte b) {
    const int e = std::to_integer<int>(b);
    return e == 0 ? std::ldexp(1.0, -127) : std::ldexp(1.0, e - 127);
  };
  switch (w.official) {
    case src_kind::fp8: {
      const std::int64_t cols = w.shape[1], sc = (cols + 127) / 128;
      for (std::int64_t i = 0; i < n; ++i) {
        const int code = std::to_integer<int>(t.data[i]);
        const int e = (code >> 3) & 15, m = code & 7;
        double v = e == 0 ? m * std::ldexp(1.0, -9) : (1 + m / 8.0) * std::ldexp(1.0, e - 7);
        if (code & 0x80) v = -v;
        if (e == 15 && m == 7) v = 0.0;  // NaN codes decode to +0, as ds4's quantizer does
        out[i] = static_cast<float>(v * e8m0(t.scale[(i / cols / 128) * sc + (i % cols) / 128]));
      }
      break;
    }
    case src_kind::fp4: {
      static constexpr double table[16] = {0, .5, 1, 1.5, 2, 3, 4, 6, -0.0, -.5, -1, -1.5, -2, -3, -4, -6};
      for (std::int64_t i = 0; i < n; ++i) {
        const int code = (std::to_integer<int>(t.data[i / 2]) >> (4 * (i % 2))) & 15;
        out[i] = static_cast<float>(table[code] * e8m0(t.scale[i / 32]));
      }
      break;
    }
    case src_kind::bf16:
      for (std::int64_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, t.data.data() + 2 * i, 2);
        const std::uint32_t u = std::uint32_t{h} << 16;
        std::memcpy(&out[i], &u, 4);
      }
      break;
    case src_kind::f32: std::memcpy(out.data(), t.data.data(), t.data.size()); break;
    case src_kind::i64:
      for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t v;
        std::memcpy(&v, t.data.data() + 8 * i, 8);
        out[i] = static_cast<float>(v);
      }
      break;
  }
  return out;
}

inline std::string dtype_of(src_kind k) {
  switch (k) {
    case src_kind::fp8: return "F8_E4M3";
    case src_kind::bf16: return "BF16";
    case src_kind::f32: return "F32";
    case src_kind::fp4: return "I8";
    case src_kind::i64: return "I64";
  }
  return "?";
}

/// Official-layout config.json text for `d` (legacy key spellings, as the release ships).
inline std::string official_config(const tiny_dims& d) {
  nlohmann::json j = {
      {"architectures", {"DeepseekV4ForCausalLM"}}, {"model_type", "deepseek_v4"},
      {"vocab_size", d.V}, {"hidden_size", d.H}, {"moe_intermediate_size", d.I},
      {"num_hidden_layers", d.L}, {"num_attention_heads", d.nh}, {"num_key_value_heads", 1},
      {"head_dim", d.hd}, {"qk_rope_head_dim", d.rot}, {"q_lora_rank", d.ql}, {"o_groups", d.og},
      {"o_lora_rank", d.ol}, {"n_routed_experts", d.E}, {"n_shared_experts", 1}, {"num_experts_per_tok", d.used},
      {"scoring_func", "sqrtsoftplus"}, {"norm_topk_prob", true}, {"routed_scaling_factor", 1.5},
      {"max_position_embeddings", 1048576}, {"rope_theta", 10000}, {"compress_rope_theta", 160000},
      {"rope_scaling", {{"type", "yarn"}, {"factor", 16}, {"original_max_position_embeddings", 65536},
                        {"beta_fast", 32}, {"beta_slow", 1}}},
      {"compress_ratios", {0, 0, 4, 128, 0}},  // the release lists the MTP layer too
      {"hc_mult", d.hc}, {"hc_sinkhorn_iters", 20}, {"hc_eps", 1e-6}, {"num_hash_layers", d.hash},
      {"swiglu_limit", 10.0}, {"sliding_window", 16}, {"index_n_heads", d.ih}, {"index_head_dim", d.id},
      {"index_topk", 4}, {"num_nextn_predict_layers", 1}, {"rms_norm_eps", 1e-6},
      {"quantization_config", {{"quant_method", "fp8"}, {"weight_block_size", {128, 128}}}}};
  return j.dump(2);
}

/// HF save_pretrained-style config.json (layer_types, mlp_layer_types, nested rope_parameters).
inline std::string hf_config(const tiny_dims& d) {
  nlohmann::json j = {
      {"architectures", {"DeepseekV4ForCausalLM"}}, {"model_type", "deepseek_v4"},
      {"vocab_size", d.V}, {"hidden_size", d.H}, {"moe_intermediate_size", d.I},
      {"num_hidden_layers", d.L}, {"num_attention_heads", d.nh}, {"num_key_value_heads", 1},
      {"head_dim", d.hd}, {"partial_rotary_factor", static_cast<double>(d.rot) / d.hd}, {"q_lora_rank", d.ql},
      {"o_groups", d.og}, {"o_lora_rank", d.ol}, {"n_routed_experts", d.E}, {"n_shared_experts", 1},
      {"num_experts_per_tok", d.used}, {"scoring_func", "sqrtsoftplus"}, {"norm_topk_prob", true},
      {"routed_scaling_factor", 1.5}, {"max_position_embeddings", 4096}, {"rope_theta", 10000.0},
      {"compress_rope_theta", 160000.0},
      {"layer_types", {"sliding_attention", "sliding_attention", "compressed_sparse_attention",
                       "heavily_compressed_attention"}},
      {"compress_rates", {{"compressed_sparse_attention", 4}, {"heavily_compressed_attention", 128}}},
      {"mlp_layer_types", {"hash_moe", "moe", "moe", "moe"}},
      {"rope_parameters",
       {{"main", {{"rope_type", "default"}, {"rope_theta", 10000.0}, {"partial_rotary_factor", 0.5}}},
        {"compress", {{"rope_type", "yarn"}, {"rope_theta", 160000.0}, {"factor", 16.0},
                      {"original_max_position_embeddings", 65536}, {"beta_fast", 32.0}, {"beta_slow", 1.0},
                      {"attention_factor", 1.0}, {"partial_rotary_factor", 0.5}}}}},
      {"hc_mult", d.hc}, {"hc_sinkhorn_iters", 20}, {"hc_eps", 1e-6}, {"swiglu_limit", 10.0},
      {"sliding_window", 16}, {"index_n_heads", d.ih}, {"index_head_dim", d.id}, {"index_topk", 4},
      {"rms_norm_eps", 1e-6}, {"tie_word_embeddings", false}, {"torch_dtype", "float32"}};
  return j.dump(2);
}

}  // namespace ordo::convert::testing
