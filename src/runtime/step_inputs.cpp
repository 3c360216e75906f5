// Block vectors and step scratch (include/ordo/runtime/step_inputs.hpp).
#include "ordo/runtime/step_inputs.hpp"

#include <algorithm>

#include "ordo/quant/dequant_row.hpp"

namespace ordo::runtime {

namespace {

/// Carves typed arrays out of one arena: a first pass (`reserve`) sums the aligned sizes, the
/// arena is allocated, a second pass (`take`) hands out the spans in the same order.
class arena_carver {
 public:
  explicit arena_carver(uint64_t align) : align_(align) {}
  template <class T>
  void reserve(uint64_t count) {
    bytes_ = align_up(bytes_ + count * sizeof(T), align_);
  }
  memory_arena allocate(memory_kind kind) const { return memory_arena(bytes_, align_, kind); }
  template <class T>
  std::span<T> take(memory_arena& a, uint64_t count) {
    T* p = reinterpret_cast<T*>(a.data() + offset_);
    offset_ = align_up(offset_ + count * sizeof(T), align_);
    return {p, count};
  }

 private:
  uint64_t align_;
  uint64_t bytes_ = 0;
  uint64_t offset_ = 0;
};

bool is_vector_role(const block_weights& b, model::ds4_role role) {
  using c = model::ds4_type_class;
  using r = model::ds4_role;
  if (!b.find(role)) return false;
  const bool ape = role == r::attn_compressor_ape || role == r::indexer_compressor_ape;
  return ape || model::ds4_role_of(role).type_class == c::f32;
}

}  // namespace

block_vectors bind_vectors(const block_weights& b, memory_kind kind) {
  using r = model::ds4_role;
  arena_carver carve(256);
  for (std::size_t i = 0; i < model::ds4_role_count; ++i)
    if (const auto role = static_cast<r>(i); is_vector_role(b, role)) {
      const weight_view& w = *b.find(role);
      carve.reserve<float>(w.cols * w.rows * w.experts);
    }
  block_vectors out;
  out.arena = carve.allocate(kind);
  for (std::size_t i = 0; i < model::ds4_role_count; ++i) {
    const auto role = static_cast<r>(i);
    if (!is_vector_role(b, role)) continue;
    const weight_view& w = *b.find(role);
    std::span<float> v = out.v[i] = carve.take<float>(out.arena, w.cols * w.rows * w.experts);
    // Row by row: a row of a quantized or half type is whole blocks, its bytes row_bytes apart.
    for (uint64_t row = 0; row < w.rows * w.experts; ++row)
      quant::dequant_row(static_cast<uint32_t>(w.format), w.data + row * w.row_bytes, v.data() + row * w.cols, w.cols);
  }
  return out;
}

step_scratch make_step_scratch(const model::ds4_hparams& h, uint32_t ctx, uint32_t rows, const alloc_policy& p) {
  uint32_t min_ratio = 0;
  for (uint32_t r : h.compress_ratios)
    if (r != 0) min_ratio = min_ratio == 0 ? r : std::min(min_ratio, r);
  const uint64_t compressed = min_ratio ? ctx / min_ratio : 0;
  const uint64_t raw = uint64_t(h.sliding_window) + rows;  // a step's rows see at most window + rows − 1 raw rows
  const uint64_t kv_rows = raw + compressed, gather_stride = raw + compressed;
  const uint64_t q_fp4 = uint64_t(rows) * h.indexer_heads * h.indexer_dim;
  const uint64_t align = std::max<uint64_t>(p.align, 64);
  const bool mirrored = p.memory == memory_kind::managed;  // pinned host arrays, device copies
  arena_carver carve(align), kernel_carve(align);
  const uint64_t n_cos = uint64_t(rows) * h.n_rot, n_gather = uint64_t(rows) * gather_stride;
  // the host-written arrays, then (mirrored) their device copies in the kernel arena
  const auto reserve_inputs = [&](arena_carver& c) {
    c.reserve<float>(n_cos);
    c.reserve<float>(h.n_rot);
    c.reserve<int32_t>(kv_rows);
    c.reserve<int32_t>(n_gather);
    c.reserve<int32_t>(rows);
    c.reserve<int32_t>(rows);
  };
  reserve_inputs(carve);
  carve.reserve<int32_t>(rows);  // n_selected
  carve.reserve<int32_t>(rows);  // tokens
  kernel_carve.reserve<float>(kv_rows * h.head_dim);
  kernel_carve.reserve<float>(q_fp4);
  if (mirrored) reserve_inputs(kernel_carve);
  step_scratch s;
  s.arena = carve.allocate(mirrored ? memory_kind::pinned : p.memory);  // zeroed
  s.kernel_arena = kernel_carve.allocate(p.memory);
  s.cos_sin = carve.take<float>(s.arena, n_cos);
  s.emit_cos_sin = carve.take<float>(s.arena, h.n_rot);
  s.table_source = carve.take<int32_t>(s.arena, kv_rows);
  s.gather_stride = gather_stride;
  s.gather = carve.take<int32_t>(s.arena, n_gather);
  std::fill(s.gather.begin(), s.gather.end(), -1);
  s.n_listed = carve.take<int32_t>(s.arena, rows);
  s.n_visible = carve.take<int32_t>(s.arena, rows);
  s.n_selected = carve.take<int32_t>(s.arena, rows);
  s.tokens = carve.take<int32_t>(s.arena, rows);
  s.kv_rows = kv_rows;
  s.kv_table = kernel_carve.take<float>(s.kernel_arena, kv_rows * h.head_dim);
  s.q_fp4 = kernel_carve.take<float>(s.kernel_arena, q_fp4);
  s.dev = {s.cos_sin.data(), s.emit_cos_sin.data(), s.table_source.data(), s.gather.data(), s.n_listed.data(), s.n_visible.data()};
  if (mirrored) {
    s.dev.cos_sin = kernel_carve.take<float>(s.kernel_arena, n_cos).data();
    s.dev.emit_cos_sin = kernel_carve.take<float>(s.kernel_arena, h.n_rot).data();
    s.dev.table_source = kernel_carve.take<int32_t>(s.kernel_arena, kv_rows).data();
    s.dev.gather = kernel_carve.take<int32_t>(s.kernel_arena, n_gather).data();
    s.dev.n_listed = kernel_carve.take<int32_t>(s.kernel_arena, rows).data();
    s.dev.n_visible = kernel_carve.take<int32_t>(s.kernel_arena, rows).data();
  }
  return s;
}

}  // namespace ordo::runtime
