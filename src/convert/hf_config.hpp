/// DS4 hyperparameters read from a checkpoint's config.json, in both spellings: the official
/// release (`compress_ratios`, `num_hash_layers`, `qk_rope_head_dim`, `rope_scaling`, ...) and HF
/// transformers' `save_pretrained` (`layer_types` + `compress_rates`, `mlp_layer_types`,
/// `rope_parameters` {main, compress}, `partial_rotary_factor`, ...). Keys that are absent take HF
/// DeepseekV4Config's defaults (the values HF itself would run with), except the layer schedule,
/// which must be given. `ds4_metadata` turns the result into the `deepseek4.*` GGUF keys through
/// the engine's own table (ordo/model/ds4_hparams.hpp), so what we write is what the loader reads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ordo/model/ds4_hparams.hpp"
#include "ordo/model/gguf_value.hpp"

namespace ordo::convert {

struct yarn_params {
  bool enabled = false;
  float factor = 1.0f;
  std::uint32_t original_context = 0;
  float beta_fast = 32.0f;
  float beta_slow = 1.0f;
};

struct hf_hparams {
  std::uint32_t n_layer = 0;
  std::uint32_t n_embd = 0;
  std::uint32_t n_vocab = 0;
  std::uint32_t n_ctx = 0;
  std::uint32_t n_head = 0;
  std::uint32_t n_head_kv = 1;
  std::uint32_t head_dim = 0;
  std::uint32_t n_rot = 0;  // rotary dims at the tail of each head
  std::uint32_t q_lora_rank = 0;
  std::uint32_t o_groups = 0;
  std::uint32_t o_lora_rank = 0;
  std::uint32_t sliding_window = 0;
  std::vector<std::int32_t> compress_ratios;  // n_layer entries, each 0, 4 or 128 (HF rates may differ)
  std::uint32_t index_n_heads = 0;
  std::uint32_t index_head_dim = 0;
  std::uint32_t index_topk = 0;
  std::uint32_t n_expert = 0;
  std::uint32_t n_expert_used = 0;
  std::uint32_t n_expert_shared = 0;
  std::uint32_t n_ff_exp = 0;
  std::uint32_t n_hash_layers = 0;
  std::string scoring_func = "sqrtsoftplus";
  bool norm_topk_prob = true;
  float routed_scaling_factor = 1.5f;
  float swiglu_limit = 10.0f;
  float rms_eps = 1e-6f;
  std::uint32_t hc_mult = 4;
  std::uint32_t hc_sinkhorn_iters = 20;
  float hc_eps = 1e-6f;
  float rope_theta = 10000.0f;
  float compress_rope_theta = 160000.0f;
  yarn_params yarn;  // applies to compressed layers only
  bool tie_word_embeddings = false;
};

/// Parses a config.json object; `label` (the path) prefixes every error.
hf_hparams parse_hf_config(const nlohmann::json& config, const std::string& label);
hf_hparams read_hf_config(const std::filesystem::path& config_json);

/// ggml's expert gating function id for an HF scoring_func (softmax 1, sigmoid 2,
/// sqrtsoftplus 4); throws for others.
std::uint32_t expert_gating_func_id(const std::string& scoring_func);

/// The engine's hyperparameter struct for `hp` (ds4 naming: no MTP block in the file). A config
/// without YaRN becomes YaRN with factor 1, which is plain RoPE (the engine always runs YaRN on
/// compressed layers; with factor 1 its interpolated and extrapolated frequencies coincide).
model::ds4_hparams to_model_hparams(const hf_hparams& hp);

/// general.name plus the deepseek4.* metadata of `hp` written by model::ds4_metadata.
std::vector<gguf::key_value> ds4_metadata(const hf_hparams& hp, const std::string& model_name);

}  // namespace ordo::convert
