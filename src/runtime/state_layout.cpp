// Sizes of the sequence state (include/ordo/runtime/state_layout.hpp).
#include "ordo/runtime/state_layout.hpp"

#include <string>

namespace ordo::runtime {

namespace {

// ORDO_MUTANT_SHALLOW_RINGS: rings sized for the visible rows only, forgetting the rows a step
// writes ahead or a restore undoes (ds4's CPU keeps exactly 128 raw rows). Built only into the
// mutant test (tests/unit/runtime), whose state-machine property must fail on it.
#if defined(ORDO_MUTANT_SHALLOW_RINGS)
constexpr bool mutant_no_slack = true;
#else
constexpr bool mutant_no_slack = false;
#endif

compressor_layout plan_compressor(uint32_t ratio, uint32_t d, const state_options& o) {
  compressor_layout c;
  c.ratio = ratio;
  c.out_width = d;
  c.width = (ratio == 4 ? 2 : 1) * d;
  const uint32_t need_rows = (mutant_no_slack ? 0 : o.slack_rows) + compressor_lookback(ratio);
  c.ring_windows = (need_rows + ratio - 1) / ratio;
  c.kv = make_row_layout(uint64_t{c.ring_windows} * ratio, uint64_t{c.width} * 4, o.alloc);
  c.score = c.kv;
  c.rows = make_row_layout(o.ctx / ratio, uint64_t{d} * 4, o.alloc);
  return c;
}

layer_state_layout plan_layer(const model::ds4_hparams& h, uint32_t il, uint32_t ratio, const state_options& o) {
  layer_state_layout l;
  l.layer = il;
  l.ratio = ratio;
  l.window = h.sliding_window;
  const uint64_t raw_cap = std::min<uint64_t>(uint64_t{h.sliding_window} + (mutant_no_slack ? 0 : o.slack_rows),
                                              uint64_t{o.ctx} + o.slack_rows);
  l.raw = make_row_layout(raw_cap, uint64_t{h.head_dim} * 2, o.alloc);
  if (ratio != 0) l.attn = plan_compressor(ratio, h.head_dim, o);
  if (ratio == 4) l.indexer = plan_compressor(4, h.indexer_dim, o);
  return l;
}

}  // namespace

sequence_state_layout plan_sequence_state(const model::ds4_hparams& h, const state_options& o) {
  if (o.ctx == 0) throw model::ds4_error("context length 0: a sequence needs at least one position");
  if (o.ctx > h.context_length)
    throw model::ds4_error("context length " + std::to_string(o.ctx) + " exceeds the model's context_length " +
                           std::to_string(h.context_length));
  if (o.slack_rows == 0) throw model::ds4_error("slack_rows 0: a step must be able to write at least one row");
  if (o.alloc.align == 0 || (o.alloc.align & (o.alloc.align - 1)) != 0)
    throw model::ds4_error("allocation alignment " + std::to_string(o.alloc.align) + " is not a power of two");
  sequence_state_layout s;
  s.options = o;
  for (uint32_t il = 0; il < h.n_layer; ++il) s.layers.push_back(plan_layer(h, il, h.ratio(il), o));
  // The MTP block runs as a window-only layer with its own ring (ds4-model.md §7.1).
  if (h.n_mtp) s.mtp = plan_layer(h, h.n_layer, 0, o);
  return s;
}

uint64_t sequence_state_layout::bytes() const {
  uint64_t b = mtp ? mtp->bytes() : 0;
  for (const auto& l : layers) b += l.bytes();
  return b;
}

sequence_state_layout::breakdown sequence_state_layout::by_kind() const {
  breakdown b;
  for (const auto& l : layers) {
    b.raw += l.raw.bytes();
    if (l.attn) b.compressed += l.attn->rows.bytes(), b.compressor += l.attn->kv.bytes() + l.attn->score.bytes();
    if (l.indexer)
      b.indexer_rows += l.indexer->rows.bytes(), b.compressor += l.indexer->kv.bytes() + l.indexer->score.bytes();
  }
  if (mtp) b.mtp = mtp->bytes();
  return b;
}

}  // namespace ordo::runtime
