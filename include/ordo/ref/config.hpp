/// Hyperparameters of a DS4-family model as the double-precision reference reads them, and the
/// switches for the reference's quantization simulations. Plain data: loaders fill it from GGUF
/// metadata, tests fill it by hand. Shapes follow ds4-model.md §1 (defaults are V4 Flash's).
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ordo::ref {

struct yarn_params {
  double factor = 16.0;                  // freq_scale = 1/factor on the interpolated dims
  double original_context = 65536.0;
  double beta_fast = 32.0;
  double beta_slow = 1.0;
};

struct config {
  int n_layer = 43;
  int n_embd = 4096;
  int n_vocab = 129280;
  int n_head = 64;
  int head_dim = 512;                    // K = V = the single latent row
  int n_rot = 64;                        // tail RoPE: the last n_rot dims of every head
  int q_lora_rank = 1024;
  int n_out_group = 8;                   // grouped low-rank output projection
  int out_lora_rank = 1024;
  int sliding_window = 128;              // raw rows visible to a token, itself included
  std::vector<int> compress_ratios;      // per layer (and per MTP block after them): 0, 4 or 128
  int indexer_n_head = 64;
  int indexer_head_dim = 128;
  int indexer_top_k = 512;
  int n_expert = 256;
  int n_expert_used = 6;
  int expert_ff = 2048;                  // routed and shared expert width
  int n_hash_layer = 3;                  // layers routed by tid2eid[token]
  double expert_weights_scale = 1.5;
  double router_sum_floor = 6.103515625e-5;  // the reference's floor on the selected-score sum
  std::vector<double> swiglu_clamp;      // per layer; 0 disables the clamp
  double rms_eps = 1e-6;
  int hc_mult = 4;                       // hyper-connection streams
  int hc_sinkhorn_iters = 20;
  double hc_eps = 1e-6;
  double rope_base = 10000.0;            // ratio-0 layers, no scaling
  double compress_rope_base = 160000.0;  // compressed layers, with YaRN
  yarn_params yarn;

  int ratio(int layer) const { return compress_ratios.at(static_cast<std::size_t>(layer)); }
  /// The SwiGLU clamp of a layer; MTP blocks (layer >= n_layer) past the array use its last entry.
  double clamp_limit(int layer) const {
    if (swiglu_clamp.empty()) return 0.0;
    const auto i = std::min(static_cast<std::size_t>(layer), swiglu_clamp.size() - 1);
    return swiglu_clamp[i];
  }
  int n_rope_free() const { return head_dim - n_rot; }
  int heads_per_group() const { return n_head / n_out_group; }
  int hc_mix() const { return (2 + hc_mult) * hc_mult; }

  /// Throws std::invalid_argument naming the first inconsistent field.
  void validate() const {
    auto fail = [](const std::string& what) { throw std::invalid_argument("ref::config: " + what); };
    if (n_layer <= 0 || n_embd <= 0 || n_vocab <= 0 || n_head <= 0) fail("non-positive size");
    if (static_cast<int>(compress_ratios.size()) < n_layer) fail("compress_ratios shorter than n_layer");
    for (int r : compress_ratios)
      if (r != 0 && r != 4 && r != 128) fail("compress ratio " + std::to_string(r) + " not in {0,4,128}");
    if (n_rot % 2 != 0 || n_rot > head_dim) fail("n_rot must be even and <= head_dim");
    if (n_rot > indexer_head_dim) fail("n_rot > indexer_head_dim");
    if (n_out_group <= 0 || n_head % n_out_group != 0) fail("n_head not divisible by n_out_group");
    if (n_expert_used > n_expert) fail("n_expert_used > n_expert");
    if (n_hash_layer > n_layer) fail("n_hash_layer > n_layer");
    if (hc_mult <= 0) fail("hc_mult");
  }
};

/// Quantization effects the reference model has and llama.cpp / HF transformers lack
/// (ds4-model.md §3.4.4, §3.4.5, §3.4.8). On by default; switched off only in the reference,
/// to compare with those oracles.
struct simulations {
  bool kv_fp8 = true;        // E4M3 round-trip of the non-RoPE dims of raw and compressed KV rows
  bool indexer_fp4 = true;   // Hadamard-128 then E2M1 round-trip of indexer queries and keys
  bool raw_f16 = true;       // F16 rounding of raw KV rows before they enter the window

  static simulations all_on() { return {}; }
  static simulations all_off() { return {.kv_fp8 = false, .indexer_fp4 = false, .raw_f16 = false}; }
};

}  // namespace ordo::ref
