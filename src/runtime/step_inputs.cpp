// Block vectors and step scratch (include/ordo/runtime/step_inputs.hpp).
#include "ordo/runtime/step_inputs.hpp"

#include <algorithm>

#include "ordo/quant/dequant_row.hpp"

namespace ordo::runtime {

block_vectors bind_vectors(const block_weights& b) {
  using c = model::ds4_type_class;
  using r = model::ds4_role;
  block_vectors out;
  for (std::size_t i = 0; i < model::ds4_role_count; ++i) {
    const auto role = static_cast<r>(i);
    const weight_view* w = b.find(role);
    if (!w) continue;
    const bool ape = role == r::attn_compressor_ape || role == r::indexer_compressor_ape;
    if (model::ds4_role_of(role).type_class != c::f32 && !ape) continue;
    auto& v = out.v[i];
    v.resize(w->cols * w->rows * w->experts);
    // Row by row: a row of a quantized or half type is whole blocks, its bytes row_bytes apart.
    for (uint64_t row = 0; row < w->rows * w->experts; ++row)
      quant::dequant_row(static_cast<uint32_t>(w->format), w->data + row * w->row_bytes, v.data() + row * w->cols,
                         w->cols);
  }
  return out;
}

step_scratch make_step_scratch(const model::ds4_hparams& h, uint32_t ctx, uint32_t rows) {
  step_scratch s;
  uint32_t min_ratio = 0;
  for (uint32_t r : h.compress_ratios)
    if (r != 0) min_ratio = min_ratio == 0 ? r : std::min(min_ratio, r);
  const uint64_t compressed = min_ratio ? ctx / min_ratio : 0;
  const uint64_t raw = uint64_t(h.sliding_window) + rows;  // a step's rows see at most window + rows − 1 raw rows
  s.cos_sin.assign(uint64_t(rows) * h.n_rot, 0.0f);
  s.emit_cos_sin.assign(h.n_rot, 0.0f);
  s.kv_rows = raw + compressed;
  s.kv_table.assign(s.kv_rows * h.head_dim, 0.0f);
  s.gather_stride = raw + compressed;
  s.gather.assign(uint64_t(rows) * s.gather_stride, -1);
  s.n_listed.assign(rows, 0);
  s.n_visible.assign(rows, 0);
  s.n_selected.assign(rows, 0);
  s.q_fp4.assign(uint64_t(rows) * h.indexer_heads * h.indexer_dim, 0.0f);
  return s;
}

}  // namespace ordo::runtime
