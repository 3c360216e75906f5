/// DS4 (DeepSeek V4 Flash) hyperparameters: the `deepseek4.*` GGUF keys as one struct, the real
/// Flash values, validation against what the ordo engine supports, and a field table that reads
/// them from any metadata source with `find(key) -> const gguf::value*` (gguf::file is one),
/// writes them back as GGUF metadata, and applies `KEY=VALUE` overrides (`ordo synth --set`).
/// The same struct is the double-precision reference's config (ref/config.hpp), so the engine,
/// the reference, synth and the converter read one description of the model.
///
/// Real-valued fields are double: GGUF stores them as f32, so a value read from a file is that
/// f32 exactly, and the reference computes with it in double without a second rounding; a value
/// set by hand (a test's shape, the Flash defaults) keeps its decimal meaning for the reference
/// and is rounded to f32 (RNE) only where it is written to GGUF.
///
/// Two file conventions exist (ds4-model.md §2, §8; oracles.md §1). antirez/ds4: `block_count`
/// counts the main layers and the MTP block lives in a separate file (`mtp.0.*`). llama.cpp:
/// the MTP block is the last block (`blk.<n_layer>.nextn.*`) and `block_count` includes it, with
/// `nextn_predict_layers` = 1. Per-layer arrays (`compress_ratios`, `swiglu_clamp_exp`) cover
/// every block, the MTP block included (its ratio is 0: it behaves like a window-only layer).
#pragma once
#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ordo/model/gguf_value.hpp"

namespace ordo::model {

/// Which tensor-naming and MTP convention a file follows.
enum class ds4_naming { ds4, llama };

inline std::string_view to_string(ds4_naming n) { return n == ds4_naming::ds4 ? "ds4" : "llama"; }

/// Every model-description failure: a bad key, an unsupported value, a missing or mistyped tensor.
class ds4_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::string_view ds4_arch = "deepseek4";
/// llama.cpp's LLAMA_EXPERT_GATING_FUNC_TYPE_SQRT_SOFTPLUS, the only router DS4 uses.
inline constexpr uint32_t ds4_gating_sqrt_softplus = 4;

struct ds4_hparams {
  uint32_t n_layer = 43;  // main layers (not counting the MTP block)
  uint32_t n_mtp = 0;     // MTP blocks: 0 or 1
  uint32_t n_embd = 4096;
  uint32_t n_vocab = 129280;
  uint32_t context_length = 1048576;
  uint32_t n_head = 64;
  uint32_t n_head_kv = 1;  // one latent KV row shared by all heads (K = V)
  uint32_t head_dim = 512;
  uint32_t n_rot = 64;  // RoPE on the last n_rot dims of each head ("tail RoPE")
  uint32_t q_lora_rank = 1024;
  uint32_t o_groups = 8;
  uint32_t o_lora_rank = 1024;
  uint32_t sliding_window = 128;
  std::vector<uint32_t> compress_ratios;  // [n_layer]: 0, 4 or 128
  uint32_t indexer_heads = 64;
  uint32_t indexer_dim = 128;
  uint32_t indexer_top_k = 512;
  uint32_t n_expert = 256;
  uint32_t n_expert_used = 6;
  uint32_t n_expert_shared = 1;
  uint32_t n_ff_exp = 2048;  // routed and shared expert width
  uint32_t n_expert_groups = 0;
  uint32_t n_group_used = 0;
  uint32_t hash_layer_count = 3;  // the first layers route by token id (tid2eid)
  bool expert_weights_norm = true;
  double expert_weights_scale = 1.5;
  uint32_t expert_gating_func = ds4_gating_sqrt_softplus;
  std::vector<double> swiglu_clamp_exp;  // [n_layer]; 0 disables the clamp
  double rms_eps = 1e-6;
  uint32_t hc_count = 4;
  uint32_t hc_sinkhorn_iters = 20;
  double hc_eps = 1e-6;
  double rope_freq_base = 10000.0;             // ratio-0 layers, no scaling
  double compress_rope_freq_base = 160000.0;   // compressed layers (with YaRN)
  std::string rope_scaling_type = "yarn";
  double rope_scaling_factor = 16.0;  // YaRN: freq_scale = 1/factor on the interpolated dims
  uint32_t yarn_orig_ctx = 65536;
  double yarn_beta_fast = 32.0;
  double yarn_beta_slow = 1.0;

  uint32_t n_block(ds4_naming naming) const { return n_layer + (naming == ds4_naming::llama ? n_mtp : 0); }
  uint32_t hc_dim() const { return hc_count * n_embd; }
  uint32_t hc_mix() const { return (2 + hc_count) * hc_count; }  // pre, post, comb (hc×hc)
  uint32_t q_dim() const { return n_head * head_dim; }
  /// Compression ratio of block il; the MTP block (il >= n_layer) is window-only (0).
  uint32_t ratio(uint32_t il) const { return il < n_layer ? compress_ratios.at(il) : 0; }
  bool is_hash_layer(uint32_t il) const { return il < hash_layer_count; }
  /// The SwiGLU clamp of block il; the MTP block (past the array) uses the last layer's.
  double clamp_limit(uint32_t il) const {
    if (swiglu_clamp_exp.empty()) return 0.0;
    return swiglu_clamp_exp[std::min<std::size_t>(il, swiglu_clamp_exp.size() - 1)];
  }
  uint32_t n_rope_free() const { return head_dim - n_rot; }  // the non-RoPE dims of a head
  uint32_t heads_per_group() const { return n_head / o_groups; }
};

/// DS4's layer schedule (ds4.c `ds4_layer_compress_ratio`): layers 0,1 → 0; even ≥ 2 → 4;
/// odd ≥ 3 → 128.
inline std::vector<uint32_t> ds4_flash_ratios(uint32_t n_layer) {
  std::vector<uint32_t> r(n_layer);
  for (uint32_t il = 0; il < n_layer; ++il) r[il] = il < 2 ? 0 : (il % 2 == 0 ? 4 : 128);
  return r;
}

/// The real DeepSeek V4 Flash shape (ds4-model.md §1).
inline ds4_hparams ds4_flash_hparams() {
  ds4_hparams h;
  h.compress_ratios = ds4_flash_ratios(h.n_layer);
  h.swiglu_clamp_exp.assign(h.n_layer, 10.0);
  return h;
}

/// Checks that the engine can run `h`; throws ds4_error listing every problem found.
inline void validate(const ds4_hparams& h) {
  std::vector<std::string> bad;
  auto need = [&](bool ok, std::string what) {
    if (!ok) bad.push_back(std::move(what));
  };
  auto s = [](auto v) { return std::to_string(v); };
  need(h.n_layer >= 1, "block_count must leave at least one main layer");
  need(h.n_mtp <= 1, "nextn_predict_layers = " + s(h.n_mtp) + ": at most one MTP block is supported");
  need(h.n_embd >= 32 && h.n_embd % 32 == 0, "embedding_length = " + s(h.n_embd) + ": must be a positive multiple of 32");
  need(h.n_vocab >= 2, "vocab_size = " + s(h.n_vocab) + ": must be at least 2");
  need(h.n_head >= 1, "attention.head_count must be at least 1");
  need(h.n_head_kv == 1, "attention.head_count_kv = " + s(h.n_head_kv) + ": DS4 has one shared latent KV row (1)");
  need(h.head_dim % 64 == 0 && h.head_dim > 0,
       "attention.key_length = " + s(h.head_dim) + ": must be a positive multiple of 64 (FP8 KV blocks of 64)");
  need(h.n_rot > 0 && h.n_rot % 2 == 0 && h.n_rot < h.head_dim && (h.head_dim - h.n_rot) % 64 == 0,
       "rope.dimension_count = " + s(h.n_rot) + ": must be even, below key_length and leave a multiple of 64 non-rope dims");
  need(h.q_lora_rank >= 32 && h.q_lora_rank % 32 == 0, "attention.q_lora_rank = " + s(h.q_lora_rank) + ": must be a positive multiple of 32");
  need(h.o_groups >= 1 && h.n_head % std::max(h.o_groups, 1u) == 0,
       "attention.output_group_count = " + s(h.o_groups) + ": must divide head_count = " + s(h.n_head));
  need(h.o_lora_rank >= 32 && h.o_lora_rank % 32 == 0,
       "attention.output_lora_rank = " + s(h.o_lora_rank) + ": must be a positive multiple of 32");
  need(h.sliding_window >= 1, "attention.sliding_window must be at least 1");
  need(h.compress_ratios.size() == h.n_layer, "attention.compress_ratios has " + s(h.compress_ratios.size()) +
                                                  " entries for " + s(h.n_layer) + " layers");
  for (std::size_t il = 0; il < h.compress_ratios.size(); ++il) {
    const uint32_t r = h.compress_ratios[il];
    need(r == 0 || r == 4 || r == 128,
         "attention.compress_ratios[" + s(il) + "] = " + s(r) + ": supported ratios are 0, 4 and 128");
  }
  need(h.indexer_heads >= 1, "attention.indexer.head_count must be at least 1");
  need(h.indexer_dim >= 32 && (h.indexer_dim & (h.indexer_dim - 1)) == 0 && h.indexer_dim % 32 == 0 &&
           h.indexer_dim > h.n_rot,
       "attention.indexer.key_length = " + s(h.indexer_dim) +
           ": must be a power of two >= 32 (Hadamard + FP4 blocks) and above rope.dimension_count");
  need(h.indexer_top_k >= 1, "attention.indexer.top_k must be at least 1");
  need(h.n_expert >= 1, "expert_count must be at least 1");
  need(h.n_expert_used >= 1 && h.n_expert_used <= h.n_expert,
       "expert_used_count = " + s(h.n_expert_used) + ": must be in 1..expert_count = " + s(h.n_expert));
  need(h.n_expert_shared == 1, "expert_shared_count = " + s(h.n_expert_shared) + ": DS4 has one shared expert");
  need(h.n_ff_exp >= 32 && h.n_ff_exp % 32 == 0,
       "expert_feed_forward_length = " + s(h.n_ff_exp) + ": must be a positive multiple of 32");
  need(h.n_expert_groups <= 1 && h.n_group_used <= 1,
       "expert_group_count/expert_group_used_count: group-limited routing is not supported");
  need(h.hash_layer_count <= h.n_layer, "hash_layer_count = " + s(h.hash_layer_count) + " exceeds block_count");
  need(h.expert_gating_func == ds4_gating_sqrt_softplus,
       "expert_gating_func = " + s(h.expert_gating_func) + ": DS4 routes with sqrt(softplus) (4)");
  need(h.swiglu_clamp_exp.size() == h.n_layer, "swiglu_clamp_exp has " + s(h.swiglu_clamp_exp.size()) +
                                                   " entries for " + s(h.n_layer) + " layers");
  need(h.rms_eps > 0.0, "attention.layer_norm_rms_epsilon must be positive");
  need(h.hc_count == 4, "hyper_connection.count = " + s(h.hc_count) + ": DS4 has 4 streams");
  need(h.hc_sinkhorn_iters >= 1, "hyper_connection.sinkhorn_iterations must be at least 1");
  need(h.rope_scaling_type == "yarn", "rope.scaling.type = '" + h.rope_scaling_type + "': compressed layers use yarn");
  need(h.rope_scaling_factor >= 1.0, "rope.scaling.factor must be at least 1");
  if (!bad.empty()) {
    std::string msg = "unsupported DS4 hyperparameters:";
    for (const auto& b : bad) msg += "\n  " + b;
    throw ds4_error(msg);
  }
}

/// One `deepseek4.*` key: how to write it, read it (from a gguf::value of any producer width)
/// and where it lives in ds4_hparams. `required`: reading fails without it (llama.cpp and ds4
/// both demand it); otherwise the Flash default stays.
struct ds4_field {
  std::string_view key;  // without the "deepseek4." prefix
  gguf::value_type type;  // what the writer stores (arrays: the element type)
  bool is_array;
  bool required;
  std::function<gguf::value(const ds4_hparams&)> get;
  std::function<void(ds4_hparams&, const gguf::value&)> set;
};

namespace detail {

template <class T>
ds4_field scalar_field(std::string_view key, bool required, T ds4_hparams::*m) {
  using vt = gguf::value_type;
  if constexpr (std::is_same_v<T, uint32_t>)
    return {key, vt::u32, false, required, [m](const ds4_hparams& h) { return gguf::value::u32(h.*m); },
            [m](ds4_hparams& h, const gguf::value& v) { h.*m = v.to_u32(); }};
  else if constexpr (std::is_same_v<T, double>)  // stored as f32: see the header comment
    return {key, vt::f32, false, required, [m](const ds4_hparams& h) { return gguf::value::f32(static_cast<float>(h.*m)); },
            [m](ds4_hparams& h, const gguf::value& v) { h.*m = v.to_f32(); }};
  else if constexpr (std::is_same_v<T, bool>)
    return {key, vt::boolean, false, required, [m](const ds4_hparams& h) { return gguf::value::boolean(h.*m); },
            [m](ds4_hparams& h, const gguf::value& v) { h.*m = v.as_bool(); }};
  else
    return {key, vt::string, false, required, [m](const ds4_hparams& h) { return gguf::value::string(h.*m); },
            [m](ds4_hparams& h, const gguf::value& v) { h.*m = v.as_string(); }};
}

}  // namespace detail

/// The table of every `deepseek4.*` key except `block_count` and `nextn_predict_layers`, whose
/// meaning depends on the naming convention (see ds4_read_hparams / ds4_metadata).
/// Per-layer arrays are written with one entry per block (MTP: ratio 0, clamp of the last layer)
/// and read from their first n_layer entries.
inline const std::vector<ds4_field>& ds4_fields() {
  using detail::scalar_field;
  using vt = gguf::value_type;
  using H = ds4_hparams;
  static const std::vector<ds4_field> table = {
      scalar_field("context_length", false, &H::context_length),
      scalar_field("embedding_length", true, &H::n_embd),
      scalar_field("vocab_size", false, &H::n_vocab),
      scalar_field("attention.head_count", true, &H::n_head),
      scalar_field("attention.head_count_kv", true, &H::n_head_kv),
      scalar_field("attention.key_length", true, &H::head_dim),
      scalar_field("attention.value_length", true, &H::head_dim),
      scalar_field("rope.dimension_count", true, &H::n_rot),
      scalar_field("attention.q_lora_rank", true, &H::q_lora_rank),
      scalar_field("attention.output_group_count", true, &H::o_groups),
      scalar_field("attention.output_lora_rank", true, &H::o_lora_rank),
      scalar_field("attention.sliding_window", true, &H::sliding_window),
      {"attention.compress_ratios", vt::i32, true, true,
       [](const H& h) {
         std::vector<int32_t> r(h.compress_ratios.begin(), h.compress_ratios.end());
         r.resize(h.n_layer + h.n_mtp, 0);
         return gguf::value::array_of(r);
       },
       [](H& h, const gguf::value& v) {
         auto r = v.to_vector<uint32_t>();
         h.compress_ratios.assign(r.begin(), r.end());
       }},
      scalar_field("attention.indexer.head_count", true, &H::indexer_heads),
      scalar_field("attention.indexer.key_length", true, &H::indexer_dim),
      scalar_field("attention.indexer.top_k", true, &H::indexer_top_k),
      scalar_field("expert_count", true, &H::n_expert),
      scalar_field("expert_used_count", true, &H::n_expert_used),
      scalar_field("expert_shared_count", true, &H::n_expert_shared),
      scalar_field("expert_feed_forward_length", true, &H::n_ff_exp),
      scalar_field("expert_group_count", false, &H::n_expert_groups),
      scalar_field("expert_group_used_count", false, &H::n_group_used),
      scalar_field("hash_layer_count", true, &H::hash_layer_count),
      scalar_field("expert_weights_norm", true, &H::expert_weights_norm),
      scalar_field("expert_weights_scale", true, &H::expert_weights_scale),
      scalar_field("expert_gating_func", true, &H::expert_gating_func),
      {"swiglu_clamp_exp", vt::f32, true, true,
       [](const H& h) {
         std::vector<float> c(h.swiglu_clamp_exp.begin(), h.swiglu_clamp_exp.end());
         c.resize(h.n_layer + h.n_mtp, c.empty() ? 10.0f : c.back());
         return gguf::value::array_of(c);
       },
       [](H& h, const gguf::value& v) {
         const auto c = v.to_vector<float>();
         h.swiglu_clamp_exp.assign(c.begin(), c.end());
       }},
      scalar_field("attention.layer_norm_rms_epsilon", true, &H::rms_eps),
      scalar_field("hyper_connection.count", true, &H::hc_count),
      scalar_field("hyper_connection.sinkhorn_iterations", true, &H::hc_sinkhorn_iters),
      scalar_field("hyper_connection.epsilon", true, &H::hc_eps),
      scalar_field("rope.freq_base", true, &H::rope_freq_base),
      scalar_field("attention.compress_rope_freq_base", true, &H::compress_rope_freq_base),
      scalar_field("rope.scaling.type", false, &H::rope_scaling_type),
      scalar_field("rope.scaling.factor", true, &H::rope_scaling_factor),
      scalar_field("rope.scaling.original_context_length", true, &H::yarn_orig_ctx),
      scalar_field("rope.scaling.yarn_beta_fast", false, &H::yarn_beta_fast),
      scalar_field("rope.scaling.yarn_beta_slow", false, &H::yarn_beta_slow),
  };
  return table;
}

inline std::string ds4_key(std::string_view field) { return std::string(ds4_arch) + "." + std::string(field); }

/// Reads the hyperparameters of a `deepseek4` file. `meta` is anything with
/// `const gguf::value* find(std::string_view key) const` (gguf::file). With llama naming the MTP
/// block is counted in block_count: n_layer = block_count - nextn_predict_layers. With ds4
/// naming block_count is the main layer count and n_mtp stays 0 (the MTP file adds it).
/// `where` names the file in messages. Validates the result.
template <class Meta>
ds4_hparams ds4_read_hparams(const Meta& meta, ds4_naming naming, std::string_view where) {
  auto fail = [&](const std::string& msg) { throw ds4_error(std::string(where) + ": " + msg); };
  const gguf::value* arch = meta.find("general.architecture");
  if (!arch || arch->type() != gguf::value_type::string || arch->as_string() != ds4_arch)
    fail("general.architecture is " + (arch ? arch->render() : std::string("missing")) + ", expected \"deepseek4\"");
  ds4_hparams h;
  auto read_u32 = [&](std::string_view field, uint32_t fallback, bool required) {
    const std::string key = ds4_key(field);
    const gguf::value* v = meta.find(key);
    if (!v) {
      if (required) fail("metadata key '" + key + "' is missing");
      return fallback;
    }
    try {
      return v->to_u32();
    } catch (const std::exception& e) {
      fail("metadata key '" + key + "': " + e.what());
    }
    return fallback;
  };
  const uint32_t block_count = read_u32("block_count", 0, true);
  const uint32_t nextn = read_u32("nextn_predict_layers", 0, false);
  if (naming == ds4_naming::llama) {
    if (nextn > block_count) fail("nextn_predict_layers = " + std::to_string(nextn) + " exceeds block_count");
    h.n_layer = block_count - nextn;
    h.n_mtp = nextn;
  } else {
    h.n_layer = block_count;
    h.n_mtp = 0;
  }
  // ds4 requires vocab_size; llama.cpp sizes the vocabulary from the tokenizer instead.
  if (const gguf::value* tokens = meta.find("tokenizer.ggml.tokens"); tokens && tokens->is_array())
    h.n_vocab = static_cast<uint32_t>(tokens->items().size());
  for (const ds4_field& f : ds4_fields()) {
    const std::string key = ds4_key(f.key);
    const gguf::value* v = meta.find(key);
    if (!v) {
      if (f.required) fail("metadata key '" + key + "' is missing");
      continue;
    }
    try {
      f.set(h, *v);
    } catch (const std::exception& e) {
      fail("metadata key '" + key + "' = " + v->render() + ": " + e.what());
    }
  }
  // Per-layer arrays cover every block; keep the main layers' entries, check the MTP ones.
  if (h.compress_ratios.size() < h.n_layer)
    fail(ds4_key("attention.compress_ratios") + " has " + std::to_string(h.compress_ratios.size()) +
         " entries, fewer than the " + std::to_string(h.n_layer) + " layers");
  if (h.n_mtp && h.compress_ratios.size() > h.n_layer && h.compress_ratios[h.n_layer] != 0)
    fail(ds4_key("attention.compress_ratios") + "[" + std::to_string(h.n_layer) +
         "] (the MTP block) must be 0, is " + std::to_string(h.compress_ratios[h.n_layer]));
  h.compress_ratios.resize(h.n_layer);
  if (h.swiglu_clamp_exp.size() < h.n_layer)
    fail(ds4_key("swiglu_clamp_exp") + " has " + std::to_string(h.swiglu_clamp_exp.size()) + " entries, fewer than the " +
         std::to_string(h.n_layer) + " layers");
  h.swiglu_clamp_exp.resize(h.n_layer);
  try {
    validate(h);
  } catch (const ds4_error& e) {
    fail(e.what());
  }
  return h;
}

/// The `deepseek4.*` metadata of `h` (plus general.architecture) in a stable order.
/// Per-layer arrays get exactly block_count entries: llama.cpp rejects a `swiglu_clamp_exp` of
/// any other length, so with ds4 naming (MTP in its own file) they cover the main layers only.
inline std::vector<gguf::key_value> ds4_metadata(const ds4_hparams& h, ds4_naming naming) {
  ds4_hparams blocks = h;
  if (naming == ds4_naming::ds4) blocks.n_mtp = 0;
  std::vector<gguf::key_value> kv;
  kv.push_back({"general.architecture", gguf::value::string(std::string(ds4_arch))});
  kv.push_back({ds4_key("block_count"), gguf::value::u32(blocks.n_block(naming))});
  if (blocks.n_mtp) kv.push_back({ds4_key("nextn_predict_layers"), gguf::value::u32(blocks.n_mtp)});
  for (const ds4_field& f : ds4_fields()) kv.push_back({ds4_key(f.key), f.get(blocks)});
  return kv;
}

namespace detail {

inline gguf::value parse_scalar(gguf::value_type t, std::string_view text, std::string_view key) {
  const std::string s(text);
  auto bad = [&](std::string_view what) {
    return ds4_error("--set " + std::string(key) + "=" + s + ": " + std::string(what));
  };
  try {
    std::size_t used = 0;
    switch (t) {
      case gguf::value_type::u32: {
        if (s.empty() || s[0] == '-') throw bad("expected an unsigned integer");
        const unsigned long long v = std::stoull(s, &used);
        if (used != s.size() || v > UINT32_MAX) throw bad("expected an unsigned 32-bit integer");
        return gguf::value::u32(static_cast<uint32_t>(v));
      }
      case gguf::value_type::i32: {
        const long long v = std::stoll(s, &used);
        if (used != s.size() || v < INT32_MIN || v > INT32_MAX) throw bad("expected a 32-bit integer");
        return gguf::value::i32(static_cast<int32_t>(v));
      }
      case gguf::value_type::f32: {
        const float v = std::stof(s, &used);
        if (used != s.size() || !std::isfinite(v)) throw bad("expected a finite number");
        return gguf::value::f32(v);
      }
      case gguf::value_type::boolean:
        if (s == "true" || s == "1") return gguf::value::boolean(true);
        if (s == "false" || s == "0") return gguf::value::boolean(false);
        throw bad("expected true or false");
      default:
        return gguf::value::string(s);
    }
  } catch (const ds4_error&) {
    throw;
  } catch (const std::exception&) {
    throw bad("not a valid value for this key");
  }
}

}  // namespace detail

/// Applies one override, `key` being a `deepseek4.*` key without the prefix (`block_count`,
/// `attention.compress_ratios`, ...); arrays are comma-separated. Changing block_count resizes
/// the per-layer arrays with DS4's schedule and clamp, so a later `--set` can still replace them.
/// `nextn_predict_layers` sets n_mtp. Throws ds4_error for an unknown key or a bad value.
inline void ds4_set_hparam(ds4_hparams& h, std::string_view key, std::string_view text) {
  if (key == "block_count" || key == "nextn_predict_layers") {
    const uint32_t v = detail::parse_scalar(gguf::value_type::u32, text, key).as_u32();
    if (key == "nextn_predict_layers") {
      h.n_mtp = v;
      return;
    }
    h.n_layer = v;
    h.compress_ratios = ds4_flash_ratios(v);
    h.swiglu_clamp_exp.assign(v, h.swiglu_clamp_exp.empty() ? 10.0 : h.swiglu_clamp_exp.front());
    h.hash_layer_count = std::min(h.hash_layer_count, v);
    return;
  }
  for (const ds4_field& f : ds4_fields()) {
    if (f.key != key) continue;
    if (!f.is_array) {
      f.set(h, detail::parse_scalar(f.type, text, key));
      return;
    }
    std::vector<gguf::value> items;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      items.push_back(detail::parse_scalar(f.type, text.substr(start, comma - start), key));
      start = comma + 1;
    }
    f.set(h, gguf::value::array(f.type, std::move(items)));
    return;
  }
  std::string known = "block_count, nextn_predict_layers";
  for (const ds4_field& f : ds4_fields()) known += ", " + std::string(f.key);
  throw ds4_error("--set " + std::string(key) + ": unknown deepseek4 key (known: " + known + ")");
}

}  // namespace ordo::model
