// Preset shapes. tiny is the shape oracles.md §1 recommends (every code path, llama.cpp loads it,
// seconds to run); small sits between (a few hundred MB with the default types); full is Flash.
#include "synth/synth.hpp"

namespace ordo::synth {

model::ds4_hparams preset_hparams(preset p) {
  model::ds4_hparams h = model::ds4_flash_hparams();
  if (p == preset::full) return h;
  auto layers = [&](uint32_t n, std::vector<uint32_t> ratios) {
    h.n_layer = n;
    h.compress_ratios = std::move(ratios);
    h.swiglu_clamp_exp.assign(n, 10.0f);
  };
  if (p == preset::tiny) {
    layers(4, {0, 0, 4, 128});
    h.n_embd = 256;
    h.n_vocab = 512;
    h.context_length = 4096;
    h.n_head = 8;  // head_dim stays 512 (448 = 7·64 non-rope dims, as in DS4)
    h.q_lora_rank = 128;
    h.o_groups = 2;
    h.o_lora_rank = 64;
    h.sliding_window = 16;
    h.indexer_heads = 16;  // with 4 heads exact-zero ReLU scores tie (oracles.md §1)
    h.indexer_top_k = 4;
    h.n_expert = 16;
    h.n_expert_used = 6;
    h.n_ff_exp = 128;
    h.hash_layer_count = 1;
    return h;
  }
  // small: 8 layers covering both schedules twice.
  layers(8, {0, 0, 4, 128, 4, 128, 4, 128});
  h.n_embd = 1024;
  h.n_vocab = 8192;
  h.context_length = 65536;
  h.n_head = 16;
  h.q_lora_rank = 256;
  h.o_groups = 4;
  h.o_lora_rank = 256;
  h.sliding_window = 64;
  h.indexer_heads = 32;
  h.indexer_top_k = 32;
  h.n_expert = 32;
  h.n_expert_used = 6;
  h.n_ff_exp = 512;
  h.hash_layer_count = 2;
  return h;
}

gguf::ggml_type default_dense(preset p) { return p == preset::tiny ? gguf::ggml_type::f32 : gguf::ggml_type::q8_0; }
gguf::ggml_type default_experts(preset p) { return p == preset::tiny ? gguf::ggml_type::f32 : gguf::ggml_type::q4_k; }

}  // namespace ordo::synth
