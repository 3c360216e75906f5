#include "convert/hf_config.hpp"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ordo::convert {

namespace {

using json = nlohmann::json;

struct reader {
  const json& j;
  const std::string& label;

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(fmt::format("{}: {}", label, what));
  }
  const json* find(const json& obj, const char* key) const {
    if (!obj.is_object()) return nullptr;
    const auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }
  const json* find(const char* key) const { return find(j, key); }

  std::uint32_t u32_of(const json& v, const char* key) const {
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= 0xffffffffLL)
      return static_cast<std::uint32_t>(v.get<std::int64_t>());
    // Some exporters write integral values as floats (65536.0).
    if (v.is_number_float() && v.get<double>() >= 0 && v.get<double>() <= 4294967295.0 &&
        v.get<double>() == static_cast<double>(static_cast<std::uint64_t>(v.get<double>())))
      return static_cast<std::uint32_t>(v.get<double>());
    fail(fmt::format("\"{}\" must be a non-negative integer, got {}", key, v.dump()));
  }
  float f32_of(const json& v, const char* key) const {
    if (!v.is_number()) fail(fmt::format("\"{}\" must be a number, got {}", key, v.dump()));
    return static_cast<float>(v.get<double>());
  }
  std::uint32_t u32(const char* key) const {
    const json* v = find(key);
    if (v == nullptr) fail(fmt::format("missing \"{}\"", key));
    return u32_of(*v, key);
  }
  std::uint32_t u32(const char* key, std::uint32_t def) const {
    const json* v = find(key);
    return v == nullptr ? def : u32_of(*v, key);
  }
  float f32(const char* key, float def) const {
    const json* v = find(key);
    return v == nullptr ? def : f32_of(*v, key);
  }
  bool boolean(const char* key, bool def) const {
    const json* v = find(key);
    if (v == nullptr) return def;
    if (!v->is_boolean()) fail(fmt::format("\"{}\" must be true or false", key));
    return v->get<bool>();
  }
};

// HF's attention layer types and the compression ratio each one means.
std::int32_t ratio_of_layer_type(const reader& r, const std::string& type, const json* rates) {
  if (type == "sliding_attention") return 0;
  std::int32_t def = 0;
  if (type == "compressed_sparse_attention") def = 4;
  else if (type == "heavily_compressed_attention") def = 128;
  else r.fail(fmt::format("layer_types: unknown attention type \"{}\"", type));
  if (rates != nullptr && rates->contains(type)) return static_cast<std::int32_t>(r.u32_of((*rates)[type], "compress_rates"));
  // Legacy scalar overrides HF folds into compress_rates.
  if (def == 4) return static_cast<std::int32_t>(r.u32("compress_rate_csa", 4));
  return static_cast<std::int32_t>(r.u32("compress_rate_hca", 128));
}

yarn_params parse_yarn(const reader& r, const json& p) {
  yarn_params y;
  std::string type = "default";
  if (const json* t = r.find(p, "rope_type")) type = t->get<std::string>();
  else if (const json* t2 = r.find(p, "type")) type = t2->get<std::string>();
  if (type != "yarn") {
    if (type != "default" && type != "none")
      r.fail(fmt::format("rope type \"{}\" is not supported for DS4 (expected yarn or default)", type));
    return y;
  }
  y.enabled = true;
  const json* f = r.find(p, "factor");
  if (f == nullptr) r.fail("yarn rope parameters need \"factor\"");
  y.factor = r.f32_of(*f, "factor");
  // HF falls back to max_position_embeddings when the rope dict has no original length.
  const json* o = r.find(p, "original_max_position_embeddings");
  if (o == nullptr) o = r.find("original_max_position_embeddings");
  if (o == nullptr) o = r.find("max_position_embeddings");
  if (o == nullptr) r.fail("yarn rope parameters need \"original_max_position_embeddings\"");
  y.original_context = r.u32_of(*o, "original_max_position_embeddings");
  if (const json* b = r.find(p, "beta_fast")) y.beta_fast = r.f32_of(*b, "beta_fast");
  if (const json* b = r.find(p, "beta_slow")) y.beta_slow = r.f32_of(*b, "beta_slow");
  // DS4 runs YaRN without magnitude scaling (ds4-model §3.4.3; HF forces attention_factor 1).
  if (const json* a = r.find(p, "attention_factor"); a != nullptr && r.f32_of(*a, "attention_factor") != 1.0f)
    r.fail("yarn attention_factor other than 1.0 is not what DS4 computes");
  return y;
}

}  // namespace

hf_hparams parse_hf_config(const json& config, const std::string& label) {
  const reader r{config, label};
  if (!config.is_object()) r.fail("config is not a JSON object");
  hf_hparams hp;
  hp.n_layer = r.u32("num_hidden_layers");
  hp.n_embd = r.u32("hidden_size");
  hp.n_vocab = r.u32("vocab_size");
  hp.n_ctx = r.u32("max_position_embeddings", 1048576);
  hp.n_head = r.u32("num_attention_heads");
  hp.n_head_kv = r.u32("num_key_value_heads", 1);
  hp.head_dim = r.u32("head_dim");
  hp.q_lora_rank = r.u32("q_lora_rank");
  hp.o_groups = r.u32("o_groups", 8);
  hp.o_lora_rank = r.u32("o_lora_rank", 1024);
  hp.sliding_window = r.u32("sliding_window", 128);
  hp.index_n_heads = r.u32("index_n_heads", 64);
  hp.index_head_dim = r.u32("index_head_dim", 128);
  hp.index_topk = r.u32("index_topk", 512);
  hp.n_expert = r.find("n_routed_experts") ? r.u32("n_routed_experts") : r.u32("num_local_experts", 256);
  hp.n_expert_used = r.u32("num_experts_per_tok", 6);
  hp.n_expert_shared = r.u32("n_shared_experts", 1);
  hp.n_ff_exp = r.find("moe_intermediate_size") ? r.u32("moe_intermediate_size") : r.u32("intermediate_size", 2048);
  if (const json* s = r.find("scoring_func")) hp.scoring_func = s->get<std::string>();
  hp.norm_topk_prob = r.boolean("norm_topk_prob", true);
  hp.routed_scaling_factor = r.f32("routed_scaling_factor", 1.5f);
  hp.swiglu_limit = r.f32("swiglu_limit", 10.0f);
  hp.rms_eps = r.f32("rms_norm_eps", 1e-6f);
  hp.hc_mult = r.u32("hc_mult", 4);
  hp.hc_sinkhorn_iters = r.u32("hc_sinkhorn_iters", 20);
  hp.hc_eps = r.f32("hc_eps", 1e-6f);
  hp.tie_word_embeddings = r.boolean("tie_word_embeddings", false);
  expert_gating_func_id(hp.scoring_func);  // rejects unknown scoring functions early

  // Rotary dims: qk_rope_head_dim (official), else head_dim · partial_rotary_factor (HF).
  if (r.find("qk_rope_head_dim") != nullptr) {
    hp.n_rot = r.u32("qk_rope_head_dim");
  } else {
    float prf = r.f32("partial_rotary_factor", 0.0f);
    if (prf == 0.0f)
      if (const json* rp = r.find("rope_parameters"); rp != nullptr)
        if (const json* m = r.find(*rp, "main"); m != nullptr)
          if (const json* p = r.find(*m, "partial_rotary_factor")) prf = r.f32_of(*p, "partial_rotary_factor");
    if (prf == 0.0f) prf = 64.0f / 512.0f;
    hp.n_rot = static_cast<std::uint32_t>(static_cast<double>(hp.head_dim) * prf);
  }

  // Layer schedule: HF layer_types (+ compress_rates) or the official per-layer compress_ratios.
  if (const json* lt = r.find("layer_types")) {
    if (!lt->is_array()) r.fail("\"layer_types\" must be an array");
    const json* rates = r.find("compress_rates");
    for (const auto& t : *lt) {
      if (!t.is_string()) r.fail("\"layer_types\" entries must be strings");
      hp.compress_ratios.push_back(ratio_of_layer_type(r, t.get<std::string>(), rates));
    }
  } else if (const json* cr = r.find("compress_ratios")) {
    if (!cr->is_array()) r.fail("\"compress_ratios\" must be an array");
    for (const auto& v : *cr) hp.compress_ratios.push_back(static_cast<std::int32_t>(r.u32_of(v, "compress_ratios")));
  } else {
    r.fail("neither \"layer_types\" nor \"compress_ratios\" is present: the layer schedule must be explicit");
  }
  // The official config lists the MTP layer too (n_layer + 1 entries); the main model needs n_layer.
  if (hp.compress_ratios.size() < hp.n_layer)
    r.fail(fmt::format("the layer schedule has {} entries for {} layers", hp.compress_ratios.size(), hp.n_layer));
  hp.compress_ratios.resize(hp.n_layer);
  for (std::size_t i = 0; i < hp.compress_ratios.size(); ++i) {
    const auto c = hp.compress_ratios[i];
    if (c != 0 && c < 2) r.fail(fmt::format("layer {}: compress ratio {} (expected 0 or >= 2)", i, c));
  }

  // Hash-routed layers: HF mlp_layer_types (a prefix of hash_moe), else num_hash_layers.
  if (const json* mt = r.find("mlp_layer_types")) {
    if (!mt->is_array() || mt->size() < hp.n_layer) r.fail("\"mlp_layer_types\" must list every layer");
    bool in_prefix = true;
    for (std::size_t i = 0; i < hp.n_layer; ++i) {
      const auto t = (*mt)[i].get<std::string>();
      if (t == "hash_moe") {
        if (!in_prefix) r.fail(fmt::format("mlp_layer_types: hash_moe at layer {} after a moe layer; "
                                           "GGUF can only express a leading run of hash layers", i));
        ++hp.n_hash_layers;
      } else if (t == "moe") {
        in_prefix = false;
      } else {
        r.fail(fmt::format("mlp_layer_types: unknown type \"{}\"", t));
      }
    }
  } else {
    hp.n_hash_layers = std::min(hp.n_layer, r.u32("num_hash_layers", 3));
  }

  // RoPE: HF nests {main, compress}; the official config has rope_theta, compress_rope_theta and
  // rope_scaling. YaRN applies to the compressed layers only.
  hp.rope_theta = r.f32("rope_theta", 10000.0f);
  hp.compress_rope_theta = r.f32("compress_rope_theta", 160000.0f);
  const json* rp = r.find("rope_parameters");
  const json* main_p = rp ? r.find(*rp, "main") : nullptr;
  const json* comp_p = rp ? r.find(*rp, "compress") : nullptr;
  if (main_p != nullptr) {
    if (const json* t = r.find(*main_p, "rope_theta")) hp.rope_theta = r.f32_of(*t, "rope_theta");
  }
  if (comp_p != nullptr) {
    if (const json* t = r.find(*comp_p, "rope_theta")) hp.compress_rope_theta = r.f32_of(*t, "rope_theta");
    hp.yarn = parse_yarn(r, *comp_p);
  } else if (rp != nullptr && (r.find(*rp, "rope_type") != nullptr || r.find(*rp, "type") != nullptr)) {
    hp.yarn = parse_yarn(r, *rp);  // flat rope_parameters (HF before the main/compress split)
  } else if (const json* rs = r.find("rope_scaling")) {
    hp.yarn = parse_yarn(r, *rs);
  }

  if (hp.head_dim == 0 || hp.n_rot > hp.head_dim || hp.n_rot % 2 != 0)
    r.fail(fmt::format("rotary dims {} do not fit head_dim {}", hp.n_rot, hp.head_dim));
  if (hp.o_groups == 0 || (hp.n_head * hp.head_dim) % hp.o_groups != 0)
    r.fail(fmt::format("o_groups {} does not divide {} heads × {}", hp.o_groups, hp.n_head, hp.head_dim));
  return hp;
}

hf_hparams read_hf_config(const std::filesystem::path& config_json) {
  const std::string label = config_json.string();
  std::ifstream in(config_json);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open", label));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON: {}", label, e.what()));
  }
  return parse_hf_config(j, label);
}

std::uint32_t expert_gating_func_id(const std::string& scoring_func) {
  if (scoring_func == "softmax") return 1;
  if (scoring_func == "sigmoid") return 2;
  if (scoring_func == "sqrtsoftplus") return 4;
  throw std::runtime_error(fmt::format("scoring_func \"{}\" has no ggml gating function id", scoring_func));
}

model::ds4_hparams to_model_hparams(const hf_hparams& hp) {
  model::ds4_hparams h;
  h.n_layer = hp.n_layer;
  h.n_mtp = 0;
  h.n_embd = hp.n_embd;
  h.n_vocab = hp.n_vocab;
  h.context_length = hp.n_ctx;
  h.n_head = hp.n_head;
  h.n_head_kv = hp.n_head_kv;
  h.head_dim = hp.head_dim;
  h.n_rot = hp.n_rot;
  h.q_lora_rank = hp.q_lora_rank;
  h.o_groups = hp.o_groups;
  h.o_lora_rank = hp.o_lora_rank;
  h.sliding_window = hp.sliding_window;
  h.compress_ratios.assign(hp.compress_ratios.begin(), hp.compress_ratios.end());
  h.indexer_heads = hp.index_n_heads;
  h.indexer_dim = hp.index_head_dim;
  h.indexer_top_k = hp.index_topk;
  h.n_expert = hp.n_expert;
  h.n_expert_used = hp.n_expert_used;
  h.n_expert_shared = hp.n_expert_shared;
  h.n_ff_exp = hp.n_ff_exp;
  h.n_expert_groups = 0;
  h.n_group_used = 0;
  h.hash_layer_count = hp.n_hash_layers;
  h.expert_weights_norm = hp.norm_topk_prob;
  h.expert_weights_scale = hp.routed_scaling_factor;
  h.expert_gating_func = expert_gating_func_id(hp.scoring_func);
  h.swiglu_clamp_exp.assign(hp.n_layer, hp.swiglu_limit);
  h.rms_eps = hp.rms_eps;
  h.hc_count = hp.hc_mult;
  h.hc_sinkhorn_iters = hp.hc_sinkhorn_iters;
  h.hc_eps = hp.hc_eps;
  h.rope_freq_base = hp.rope_theta;
  h.compress_rope_freq_base = hp.compress_rope_theta;
  h.rope_scaling_type = "yarn";
  if (hp.yarn.enabled) {
    h.rope_scaling_factor = hp.yarn.factor;
    h.yarn_orig_ctx = hp.yarn.original_context;
    h.yarn_beta_fast = hp.yarn.beta_fast;
    h.yarn_beta_slow = hp.yarn.beta_slow;
  } else {
    h.rope_scaling_factor = 1.0f;
    h.yarn_orig_ctx = hp.n_ctx;
  }
  return h;
}

std::vector<gguf::key_value> ds4_metadata(const hf_hparams& hp, const std::string& model_name) {
  auto kv = model::ds4_metadata(to_model_hparams(hp), model::ds4_naming::ds4);
  kv.insert(kv.begin() + 1, {"general.name", gguf::value::string(model_name)});
  return kv;
}

}  // namespace ordo::convert
