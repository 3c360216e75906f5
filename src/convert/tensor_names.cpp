// The rename tables follow HF transformers' DeepseekV4 checkpoint conversion mapping (upstream ↔
// HF module names) and ds4's deepseek4-quantize layer map (upstream → GGUF), ds4-model.md §2.
#include "convert/tensor_names.hpp"

#include <charconv>
#include <utility>

#include <fmt/format.h>

namespace ordo::convert {

namespace {

struct rename {
  std::string_view from;
  std::string_view to;
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// Parses a non-negative decimal with no leading zeros (so "03" is not layer 3) up to '.' or end.
std::optional<std::pair<int, std::size_t>> parse_index(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  if (n == 0 || (n > 1 && s[0] == '0')) return std::nullopt;
  int v = 0;
  const auto r = std::from_chars(s.data(), s.data() + n, v);
  if (r.ec != std::errc{}) return std::nullopt;
  return std::pair{v, n};
}

// Whole-name renames of global tensors (HF → upstream).
constexpr rename kGlobalHf[] = {
    {"embed_tokens.weight", "embed.weight"},
    {"lm_head.weight", "head.weight"},
    {"hc_head.hc_fn", "hc_head_fn"},
    {"hc_head.hc_base", "hc_head_base"},
    {"hc_head.hc_scale", "hc_head_scale"},
};

// The MTP block's own output HC head in HF module spelling (`mtp.0.hc_head.hc_fn`, the names a
// torch MTP module built from HF's DeepseekV4HyperHead saves) → upstream `mtp.0.hc_head_fn`.
constexpr rename kMtpHf[] = {
    {"hc_head.hc_fn", "hc_head_fn"},
    {"hc_head.hc_base", "hc_head_base"},
    {"hc_head.hc_scale", "hc_head_scale"},
};

// Whole-suffix renames inside a layer (HF → upstream), applied before the prefix renames.
constexpr rename kLayerExactHf[] = {
    // HF transformers 5.17's save_pretrained spells the kv norm `attn.norm` (seen in the HF fixtures
    // tests/parity/hf/fixtures); upstream and ds4-model.md §2.2 call it `attn.kv_norm`.
    {"attn.norm.weight", "attn.kv_norm.weight"},
    {"attn_hc.fn", "hc_attn_fn"},
    {"attn_hc.base", "hc_attn_base"},
    {"attn_hc.scale", "hc_attn_scale"},
    {"ffn_hc.fn", "hc_ffn_fn"},
    {"ffn_hc.base", "hc_ffn_base"},
    {"ffn_hc.scale", "hc_ffn_scale"},
    {"self_attn.sinks", "attn.attn_sink"},
    {"self_attn.compressor.position_bias", "attn.compressor.ape"},
    {"self_attn.compressor.indexer.position_bias", "attn.indexer.compressor.ape"},
    {"mlp.gate.e_score_correction_bias", "ffn.gate.bias"},
};

// Prefix renames inside a layer (HF → upstream); the first match wins, so longer prefixes of the
// same subtree come first (the indexer lives under the compressor in HF, beside it upstream).
constexpr rename kLayerPrefixHf[] = {
    {"input_layernorm.", "attn_norm."},
    {"post_attention_layernorm.", "ffn_norm."},
    {"self_attn.compressor.indexer.scorer.weights_proj.", "attn.indexer.weights_proj."},
    {"self_attn.compressor.indexer.weights_proj.", "attn.indexer.weights_proj."},
    {"self_attn.compressor.indexer.q_b_proj.", "attn.indexer.wq_b."},
    {"self_attn.compressor.indexer.kv_proj.", "attn.indexer.compressor.wkv."},
    {"self_attn.compressor.indexer.gate_proj.", "attn.indexer.compressor.wgate."},
    {"self_attn.compressor.indexer.kv_norm.", "attn.indexer.compressor.norm."},
    {"self_attn.compressor.kv_proj.", "attn.compressor.wkv."},
    {"self_attn.compressor.gate_proj.", "attn.compressor.wgate."},
    {"self_attn.compressor.kv_norm.", "attn.compressor.norm."},
    {"self_attn.q_a_proj.", "attn.wq_a."},
    {"self_attn.q_b_proj.", "attn.wq_b."},
    {"self_attn.kv_proj.", "attn.wkv."},
    {"self_attn.o_a_proj.", "attn.wo_a."},
    {"self_attn.o_b_proj.", "attn.wo_b."},
    {"self_attn.q_a_norm.", "attn.q_norm."},
    {"self_attn.", "attn."},
    {"mlp.shared_experts.gate_proj.", "ffn.shared_experts.w1."},
    {"mlp.shared_experts.up_proj.", "ffn.shared_experts.w3."},
    {"mlp.shared_experts.down_proj.", "ffn.shared_experts.w2."},
    {"mlp.", "ffn."},
};

struct target_row {
  std::string_view upstream;
  std::string_view gguf;
  tensor_class cls;
};

constexpr target_row kGlobalTargets[] = {
    {"embed.weight", "token_embd.weight", tensor_class::aux},
    {"head.weight", "output.weight", tensor_class::dense},
    {"norm.weight", "output_norm.weight", tensor_class::f32},
    {"hc_head_fn", "output_hc_fn.weight", tensor_class::aux},
    {"hc_head_base", "output_hc_base.weight", tensor_class::f32},
    {"hc_head_scale", "output_hc_scale.weight", tensor_class::f32},
};

// ds4-model.md §2.2, in its order.
constexpr target_row kLayerTargets[] = {
    {"hc_attn_fn", "hc_attn_fn.weight", tensor_class::aux},
    {"hc_attn_scale", "hc_attn_scale.weight", tensor_class::f32},
    {"hc_attn_base", "hc_attn_base.weight", tensor_class::f32},
    {"attn_norm.weight", "attn_norm.weight", tensor_class::f32},
    {"attn.wq_a.weight", "attn_q_a.weight", tensor_class::dense},
    {"attn.q_norm.weight", "attn_q_a_norm.weight", tensor_class::f32},
    {"attn.wq_b.weight", "attn_q_b.weight", tensor_class::dense},
    {"attn.wkv.weight", "attn_kv.weight", tensor_class::dense},
    {"attn.kv_norm.weight", "attn_kv_a_norm.weight", tensor_class::f32},
    {"attn.attn_sink", "attn_sinks.weight", tensor_class::f32},
    {"attn.wo_a.weight", "attn_output_a.weight", tensor_class::dense},
    {"attn.wo_b.weight", "attn_output_b.weight", tensor_class::dense},
    {"attn.compressor.ape", "attn_compressor_ape.weight", tensor_class::aux},
    {"attn.compressor.wkv.weight", "attn_compressor_kv.weight", tensor_class::aux},
    {"attn.compressor.wgate.weight", "attn_compressor_gate.weight", tensor_class::aux},
    {"attn.compressor.norm.weight", "attn_compressor_norm.weight", tensor_class::f32},
    {"attn.indexer.wq_b.weight", "indexer.attn_q_b.weight", tensor_class::aux},
    {"attn.indexer.weights_proj.weight", "indexer.proj.weight", tensor_class::aux},
    {"attn.indexer.compressor.ape", "indexer_compressor_ape.weight", tensor_class::aux},
    {"attn.indexer.compressor.wkv.weight", "indexer_compressor_kv.weight", tensor_class::aux},
    {"attn.indexer.compressor.wgate.weight", "indexer_compressor_gate.weight", tensor_class::aux},
    {"attn.indexer.compressor.norm.weight", "indexer_compressor_norm.weight", tensor_class::f32},
    {"hc_ffn_fn", "hc_ffn_fn.weight", tensor_class::aux},
    {"hc_ffn_scale", "hc_ffn_scale.weight", tensor_class::f32},
    {"hc_ffn_base", "hc_ffn_base.weight", tensor_class::f32},
    {"ffn_norm.weight", "ffn_norm.weight", tensor_class::f32},
    {"ffn.gate.weight", "ffn_gate_inp.weight", tensor_class::aux},
    {"ffn.gate.bias", "exp_probs_b.bias", tensor_class::f32},
    {"ffn.gate.tid2eid", "ffn_gate_tid2eid.weight", tensor_class::i32},
    {"ffn.shared_experts.w1.weight", "ffn_gate_shexp.weight", tensor_class::dense},
    {"ffn.shared_experts.w3.weight", "ffn_up_shexp.weight", tensor_class::dense},
    {"ffn.shared_experts.w2.weight", "ffn_down_shexp.weight", tensor_class::dense},
};

// MTP-only tensors, relative to "mtp.0." (upstream → GGUF suffix).
constexpr target_row kMtpTargets[] = {
    {"hc_head_base", "hc_head_base.weight", tensor_class::f32},
    {"hc_head_fn", "hc_head_fn.weight", tensor_class::aux},
    {"hc_head_scale", "hc_head_scale.weight", tensor_class::f32},
    {"e_proj.weight", "e_proj.weight", tensor_class::dense},
    {"h_proj.weight", "h_proj.weight", tensor_class::dense},
    {"enorm.weight", "enorm.weight", tensor_class::f32},
    {"hnorm.weight", "hnorm.weight", tensor_class::f32},
    {"norm.weight", "norm.weight", tensor_class::f32},
};

// Splits "layers.L.rest" into (L, rest).
std::optional<std::pair<int, std::string_view>> split_layer(std::string_view s) {
  if (!starts_with(s, "layers.")) return std::nullopt;
  s.remove_prefix(7);
  const auto idx = parse_index(s);
  if (!idx || idx->second >= s.size() || s[idx->second] != '.') return std::nullopt;
  return std::pair{idx->first, s.substr(idx->second + 1)};
}

// "layers.L.rest" → (L, rest, false); "mtp.0.rest" → (0, rest, true). ds4 has one MTP block.
struct block_split {
  int index;
  std::string_view rest;
  bool mtp;
};
std::optional<block_split> split_block(std::string_view s) {
  if (const auto l = split_layer(s)) return block_split{l->first, l->second, false};
  if (starts_with(s, "mtp.0.")) return block_split{0, s.substr(6), true};
  return std::nullopt;
}

std::string gguf_block_prefix(const block_split& b) {
  return b.mtp ? std::string("mtp.0.") : fmt::format("blk.{}.", b.index);
}

}  // namespace

std::string_view to_string(tensor_class c) {
  switch (c) {
    case tensor_class::dense: return "dense";
    case tensor_class::aux: return "aux";
    case tensor_class::f32: return "f32";
    case tensor_class::i32: return "i32";
    case tensor_class::routed: return "routed";
  }
  return "?";
}

std::string canonical_name(std::string_view name) {
  if (starts_with(name, "model.")) name.remove_prefix(6);
  std::string s(name);
  // HF's FP8 loader spells the block scale `weight_scale_inv`; upstream calls it `scale`.
  if (ends_with(s, ".weight_scale_inv")) s.replace(s.size() - 17, 17, ".scale");

  for (const auto& r : kGlobalHf)
    if (s == r.from) return std::string(r.to);
  // A layer, or the MTP block (HF has no MTP module; its layer tensors are folded the same way).
  const auto block = split_block(s);
  if (!block) return s;
  const std::string prefix = block->mtp ? std::string("mtp.0.") : fmt::format("layers.{}.", block->index);
  const std::string rest(block->rest);
  if (block->mtp)
    for (const auto& r : kMtpHf)
      if (rest == r.from) return prefix + std::string(r.to);
  for (const auto& r : kLayerExactHf)
    if (rest == r.from) return prefix + std::string(r.to);
  for (const auto& r : kLayerPrefixHf)
    if (starts_with(rest, r.from)) return prefix + std::string(r.to) + rest.substr(r.from.size());
  return s;
}

std::optional<gguf_target> gguf_target_for(std::string_view canonical) {
  for (const auto& r : kGlobalTargets)
    if (canonical == r.upstream) return gguf_target{std::string(r.gguf), r.cls, -1};
  const auto block = split_block(canonical);
  if (!block) return std::nullopt;
  for (const auto& r : kLayerTargets)
    if (block->rest == r.upstream)
      return gguf_target{gguf_block_prefix(*block) + std::string(r.gguf), r.cls, block->index, block->mtp};
  if (block->mtp)
    for (const auto& r : kMtpTargets)
      if (block->rest == r.upstream) return gguf_target{"mtp.0." + std::string(r.gguf), r.cls, 0, true};
  return std::nullopt;
}

std::string routed_gguf_name(int layer, expert_proj p, bool mtp) {
  const char* what = p == expert_proj::gate ? "gate" : p == expert_proj::up ? "up" : "down";
  return mtp ? fmt::format("mtp.0.ffn_{}_exps.weight", what) : fmt::format("blk.{}.ffn_{}_exps.weight", layer, what);
}

std::optional<expert_ref> parse_expert_name(std::string_view canonical) {
  const auto block = split_block(canonical);
  if (!block) return std::nullopt;
  auto rest = block->rest;
  if (!starts_with(rest, "ffn.experts.")) return std::nullopt;
  rest.remove_prefix(12);
  const auto e = parse_index(rest);
  if (!e || e->second >= rest.size() || rest[e->second] != '.') return std::nullopt;
  rest.remove_prefix(e->second + 1);
  expert_ref ref{block->index, e->first, expert_proj::gate, false, block->mtp};
  if (starts_with(rest, "w1.")) ref.proj = expert_proj::gate;
  else if (starts_with(rest, "w3.")) ref.proj = expert_proj::up;
  else if (starts_with(rest, "w2.")) ref.proj = expert_proj::down;
  else return std::nullopt;
  rest.remove_prefix(3);
  if (rest == "weight") ref.is_scale = false;
  else if (rest == "scale") ref.is_scale = true;
  else return std::nullopt;
  return ref;
}

std::optional<fused_expert_ref> parse_fused_expert_name(std::string_view canonical) {
  const auto block = split_block(canonical);
  if (!block) return std::nullopt;
  if (block->rest == "ffn.experts.gate_up_proj") return fused_expert_ref{block->index, true, block->mtp};
  if (block->rest == "ffn.experts.down_proj") return fused_expert_ref{block->index, false, block->mtp};
  return std::nullopt;
}

std::optional<std::string> scale_name_for(std::string_view canonical_weight) {
  if (!ends_with(canonical_weight, ".weight")) return std::nullopt;
  std::string s(canonical_weight.substr(0, canonical_weight.size() - 7));
  return s + ".scale";
}

bool is_mtp_name(std::string_view canonical) { return starts_with(canonical, "mtp."); }

}  // namespace ordo::convert
