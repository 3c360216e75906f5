// Stage sizes of the step workspace (include/ordo/runtime/workspace.hpp).
#include "ordo/runtime/workspace.hpp"

#include "ordo/ops/attention/problem.hpp"
#include "ordo/runtime/same_input_groups.hpp"

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>

namespace ordo::runtime {

namespace {
constexpr std::array<std::string_view, stage_count> names = {
    "hc",           "hc_next",      "hc_flat",       "hc_mix",        "hc_split",      "x_sub",
    "x",            "x_q8",         "x_q8k",         "qr_kv",         "qr_q8",         "q",             "cmp_proj",
    "iq",           "idx_scores",   "idx_top",      "attn_split" ,   "heads",         "heads_q8",      "low",
    "low_q8",       "sublayer_out", "router_logits", "router_probs",  "expert_ids",    "expert_weights",
    "mid",          "mid_q8",       "logits"};
// One name per stage, in enum order: a missing name would leave the last one empty.
static_assert(names[stage_count - 1] == "logits");
}  // namespace

std::string_view stage_name(stage s) { return names.at(static_cast<std::size_t>(s)); }

workspace_layout plan_workspace(const model::ds4_hparams& h, uint32_t ctx, uint32_t rows, const alloc_policy& p) {
  if (rows == 0) throw std::invalid_argument("workspace for 0 rows");
  workspace_layout w;
  w.rows = rows;
  w.align = p.align;
  w.memory = p.memory;
  const uint64_t f32 = 4, act = 4;  // act: act_f32 bounds every activation format per element
  const uint64_t E = h.n_embd, hc = h.hc_dim(), used = h.n_expert_used, F = h.n_ff_exp;
  bool any4 = false, any128 = false;
  for (uint32_t il = 0; il < h.n_layer; ++il) any4 |= h.ratio(il) == 4, any128 |= h.ratio(il) == 128;
  const uint64_t comp4 = any4 ? std::min<uint64_t>(h.indexer_top_k, ctx / 4) : 0;
  const uint64_t comp128 = any128 ? ctx / 128 : 0;
  const uint64_t visible = h.sliding_window + std::max(comp4, comp128);
  auto set = [&](stage s, uint64_t elems, uint64_t bytes_per) {
    w.stages[static_cast<std::size_t>(s)] = make_row_layout(rows, elems * bytes_per, p);
  };
  using s = stage;
  set(s::hc, hc, f32);
  set(s::hc_next, hc, f32);
  set(s::hc_flat, hc, f32);
  set(s::hc_mix, h.hc_mix(), f32);
  set(s::hc_split, h.hc_mix(), f32);
  set(s::x_sub, E, f32);
  set(s::x, E, f32);
  set(s::x_q8, E, act);
  set(s::x_q8k, E, act);
  // A group's row: its members side by side, each from a multiple of group_column_align floats.
  auto group_width = [](std::initializer_list<uint64_t> members) {
    uint64_t column = 0;
    for (uint64_t rows : members) column = group_column_after(column, rows);
    return column;
  };
  set(s::qr_kv, group_width({h.q_lora_rank, h.head_dim}), f32);
  set(s::qr_q8, h.q_lora_rank, act);
  set(s::q, h.q_dim(), f32);
  set(s::cmp_proj, group_width({2ull * h.head_dim, 2ull * h.head_dim, 2ull * h.indexer_dim, 2ull * h.indexer_dim, h.indexer_heads}), f32);
  set(s::iq, uint64_t{h.indexer_heads} * h.indexer_dim, f32);
  set(s::idx_scores, any4 ? ctx / 4 : 0, f32);
  set(s::idx_top, any4 ? h.indexer_top_k : 0, 4);
  // The split attention schedule's slots: per head and chunk of the kv64 Order (step_plan's
  // entry; layer_step checks the entry's own count against this), the chunk max, den_c, acc_c.
  constexpr uint64_t attention_chunk = ops::attention::kv_chunked<64>::chunk;
  set(s::attn_split, uint64_t{h.n_head} * ((visible + attention_chunk - 1) / attention_chunk) * (2ull + h.head_dim), f32);
  set(s::heads, h.q_dim(), f32);
  set(s::heads_q8, h.q_dim(), act);
  set(s::low, uint64_t{h.o_groups} * h.o_lora_rank, f32);
  set(s::low_q8, uint64_t{h.o_groups} * h.o_lora_rank, act);
  set(s::sublayer_out, E, f32);
  set(s::router_logits, h.n_expert, f32);
  set(s::router_probs, h.n_expert, f32);
  set(s::expert_ids, used, 4);
  set(s::expert_weights, used, f32);
  set(s::mid, (used + 1) * F, f32);  // moe's slot rows: the routed slots, then the shared expert
  set(s::mid_q8, (used + 1) * F, act);
  set(s::logits, h.n_vocab, f32);
  return w;
}

uint64_t workspace_layout::bytes() const {
  uint64_t b = 0;
  for (const auto& s : stages) b += s.bytes();
  return b;
}

workspace::workspace(workspace_layout l) : layout_(l), arena_(l.bytes(), std::max<uint64_t>(l.align, 64), l.memory) {
  uint64_t off = 0;
  for (std::size_t i = 0; i < stage_count; ++i) offset_[i] = off, off += layout_.stages[i].bytes();
}

std::byte* workspace::row(stage s, uint32_t r) {
  if (r >= layout_.rows)
    throw std::out_of_range("workspace stage " + std::string(stage_name(s)) + ": row " + std::to_string(r) +
                            " of " + std::to_string(layout_.rows));
  const auto i = static_cast<std::size_t>(s);
  return arena_.data() + offset_[i] + uint64_t(r) * layout_.stages[i].stride;
}

}  // namespace ordo::runtime
