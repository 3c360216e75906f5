/// The step workspace: scratch named by model stage (DESIGN §6), one row per activation row of
/// the largest tier, strided at allocation width. Stage names follow the model's dataflow
/// (ds4-model.md §3–§4; docs/engine.md lists which op writes and reads each): `hc` is the HC state
/// entering a sublayer, `x` the normed sublayer input, `x_q8` its activation blocks for the next
/// qmv, and so on. `*_q8` stages hold activation blocks of whatever activation format the
/// consuming weights need; they are sized for the widest (act_f32: 4 bytes per element, which
/// bounds q8_32's 36/32 and q8_k's 292/256). An f32 stage row is already act_f32 blocks (32
/// floats each), so F16/F32 weights read `x`, `qr`, ... directly. A same-input group's stage
/// (qr_kv, cmp_proj) holds its members' outputs side by side, each from a multiple of 64 floats,
/// so members whose weights lie back to back write it in one qmv (same_input_groups.hpp).
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "ordo/model/ds4_hparams.hpp"
#include "ordo/runtime/row_layout.hpp"

namespace ordo::runtime {

enum class stage : uint8_t {
  hc,             // [hc_count·n_embd] f32: HC state entering the sublayer
  hc_next,        // [hc_count·n_embd] f32: HC state leaving it (hc_post)
  hc_flat,        // [hc_count·n_embd] f32: rms_norm_plain(hc), read by the F16 hc_*_fn as act_f32
  hc_mix,         // [hc_mix] f32: hc_fn · flat
  hc_split,       // [hc_mix] f32: pre(4), post(4), comb(16) after Sinkhorn
  x_sub,          // [n_embd] f32: Σ pre·hc
  x,              // [n_embd] f32: rms_norm(x_sub, attn_norm | ffn_norm)
  x_q8,           // [n_embd] act: for the Q8_0 matmuls (q8_32); F16 matmuls read `x` as act_f32
  x_q8k,          // [n_embd] act: for the routed experts (q8_k for IQ2_XXS / Q2_K / Q4_K)
  qr_kv,          // [q_lora_rank | head_dim] f32: the group attn_q_a, attn_kv of x (same_input_groups.hpp):
                  //   qr = rms_norm(attn_q_a · x, attn_q_a_norm), then the token's KV row before storage
  qr_q8,          // [q_lora_rank] act
  q,              // [n_head·head_dim] f32: head-normed, RoPE'd queries
  cmp_proj,       // [2·head_dim | 2·head_dim | 2·indexer_dim | 2·indexer_dim | indexer_heads] f32: the group
                  //   of compressor and indexer projections of x: attention compressor kv and gate (ratio 4
                  //   widths; 128 uses half each), indexer compressor kv and gate, indexer head weights
  iq,             // [indexer_heads·indexer_dim] f32: indexer queries (RoPE, Hadamard+FP4)
  idx_scores,     // [ctx / 4] f32: indexer score of every compressed row
  idx_top,        // [indexer_top_k] i32: selected compressed rows, ascending
  attn_split,     // [n_head·chunks(window + visible compressed)·(2 + head_dim)] f32: split attention slots
  heads,          // [n_head·head_dim] f32: attention output, inverse-RoPE'd
  heads_q8,       // [n_head·head_dim] act (per output group)
  low,            // [o_groups·o_lora_rank] f32: grouped output LoRA
  low_q8,         // [o_groups·o_lora_rank] act
  sublayer_out,   // [n_embd] f32: attention or FFN output before hc_post
  router_logits,  // [n_expert] f32
  router_probs,   // [n_expert] f32: sqrt(softplus)
  expert_ids,     // [n_expert_used] i32
  expert_weights, // [n_expert_used] f32
  mid,            // [(n_expert_used + 1)·n_ff_exp] f32: clamp+SwiGLU·weight per slot (moe; slot n_used: shared)
  mid_q8,         // [(n_expert_used + 1)·n_ff_exp] act: mid in the down projections' activation blocks
  logits,         // [n_vocab] f32: every row (verify needs all)
  count_
};
inline constexpr std::size_t stage_count = static_cast<std::size_t>(stage::count_);

std::string_view stage_name(stage s);

/// Bytes per row of every stage, for a model and context.
struct workspace_layout {
  uint32_t rows = 0;  // the largest tier
  uint64_t align = 256;  // of every stage's first row (the allocation alignment)
  memory_kind memory = memory_kind::host;
  std::array<row_layout, stage_count> stages{};
  uint64_t bytes() const;
  const row_layout& at(stage s) const { return stages[static_cast<std::size_t>(s)]; }
};

workspace_layout plan_workspace(const model::ds4_hparams& h, uint32_t ctx, uint32_t rows, const alloc_policy& p);

/// The allocated workspace.
class workspace {
 public:
  explicit workspace(workspace_layout l);
  const workspace_layout& layout() const { return layout_; }
  /// Row `r` (< rows) of stage `s`.
  std::byte* row(stage s, uint32_t r);
  const std::byte* row(stage s, uint32_t r) const { return const_cast<workspace*>(this)->row(s, r); }
  template <class T>
  T* row_as(stage s, uint32_t r) { return reinterpret_cast<T*>(row(s, r)); }
  template <class T>
  const T* row_as(stage s, uint32_t r) const { return reinterpret_cast<const T*>(row(s, r)); }
  uint64_t stride(stage s) const { return layout_.at(s).stride; }

 private:
  workspace_layout layout_;
  memory_arena arena_;
  std::array<uint64_t, stage_count> offset_{};
};

}  // namespace ordo::runtime
