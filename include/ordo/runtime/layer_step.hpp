/// `layer_step` (DESIGN §6, docs/engine.md §5): one DS4 layer over rows at positions f … f+n−1
/// (n ≤ the plan's tier and the state's slack) as one straight-line list of op calls, a template
/// over the executor. Every kind runs here: ratio 0, 4 and 128, hash and top-k routing. Phases:
///   1. batched stages over all n rows (A1–A13, H1–H3 / C1–C10): every raw and compressor ring
///      row of the n positions is written before any row reads history;
///   2. the per-row phase, rows ascending: compressor emissions (H4 / C11–C12) at the positions
///      that complete a window;
///   3. the indexer (C13–C14) and attention (W1 / H5 / C15) of every row, each row listing only
///      raw positions ≤ its own and the compressed rows its own position sees, so one batched
///      call per family gives every row the bits of the row alone (E1);
///   4. the output block and the FFN sublayer, batched; then the frontier advances by n.
/// No counter moves ahead of the rows that read it, so nothing needs rewinding (DESIGN §5).
///
/// Host code of the step (the RoPE rows, the KV table from the raw ring, the gather lists) runs
/// between the entries; each place where it reads what an entry wrote, or rewrites what a queued
/// entry reads, has an `ex.sync()` first (a stream synchronize on the GPU executor, nothing on
/// the CPU's), so the one function serves both executors.
///
/// The activation blocks of a qmv come from the call's own quantizer (qmv_call::quantize) on the
/// f32 stage it reads; act_f32 (F16/F32 weights) reads the f32 stage directly. Calls that read
/// the same f32 stage with the same quantizer share one quantization (shared_input; the heads'
/// groups of O2–O3 one of the whole row). With session_options::fuse_launches off, every call
/// quantizes and every same-input group member runs alone: the same bits, more launches.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/numeric/math.hpp"
#include "ordo/ops/rope/table.hpp"
#include "ordo/order/combine.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/runtime/arena_copy.hpp"
#include "ordo/runtime/kv_table_fill.hpp"
#include "ordo/runtime/same_input_groups.hpp"
#include "ordo/runtime/sequence_state.hpp"
#include "ordo/runtime/step_inputs.hpp"
#include "ordo/runtime/step_plan.hpp"
#include "ordo/runtime/workspace.hpp"

namespace ordo::runtime {

/// The RoPE angles of a layer of ratio `ratio` (plain on ratio 0 and the MTP block, YaRN on
/// compressed layers; ds4-model.md §3.4.3).
inline ops::rope::angles layer_angles(const model::ds4_hparams& h, uint32_t ratio) {
  ops::rope::angles a;
  a.n_rot = static_cast<int>(h.n_rot);
  if (ratio == 0) {
    a.base = h.rope_freq_base;
    a.yarn = false;
  } else {
    a.base = h.compress_rope_freq_base;
    a.yarn = true;
    a.factor = h.rope_scaling_factor;
    a.original_context = h.yarn_orig_ctx;
    a.beta_fast = h.yarn_beta_fast;
    a.beta_slow = h.yarn_beta_slow;
  }
  return a;
}

namespace step_detail {

/// Rows of an f32 stage.
struct f32_rows {
  float* data;
  std::size_t stride;  // floats
  float* row(int i) const { return data + std::size_t(i) * stride; }
};
inline f32_rows f32_of(workspace& ws, stage s) { return {ws.row_as<float>(s, 0), ws.stride(s) / sizeof(float)}; }
/// Live floats of a row of an f32 stage.
inline std::size_t f32_width(const workspace& ws, stage s) { return ws.layout().at(s).row_bytes / sizeof(float); }

struct byte_rows {
  std::byte* data;
  std::size_t stride;  // bytes
};
inline byte_rows bytes_of(workspace& ws, stage s) { return {ws.row(s, 0), ws.stride(s)}; }

/// The activation rows a qmv call reads: its quantized stage, or the f32 rows themselves (act_f32).
struct act_rows {
  const std::byte* data;
  std::size_t row_bytes;
};

/// Whether the call's activation is the f32 rows themselves (F16/F32 weights).
inline bool reads_f32(const qmv_call& c) { return c.quantize->info.activation == "act_f32"; }

/// Quantizes x [rows][x_stride] (k live) into `q8` with c's quantizer, unless c reads f32 rows.
template <class Executor>
act_rows quantize_for(const Executor& ex, const qmv_call& c, const float* x, std::size_t x_stride, byte_rows q8, int k, int rows) {
  if (reads_f32(c)) return {reinterpret_cast<const std::byte*>(x), x_stride * sizeof(float)};
  if (!q8.data)
    throw std::logic_error(std::string(c.entry->name.view()) + " on " + c.weight->name + ": its activation needs a quantized stage this call has not");
  ex.run(*c.quantize, ops::quantize_rows::problem{x, x_stride, q8.data, q8.stride, k, rows});
  return {q8.data, q8.stride};
}

/// One qmv over `rows` rows of activations `acts` (k live) → out [rows][out_stride] (n_out live),
/// on weight rows starting at `weights` (row_bytes apart).
template <class Executor>
void qmv_on(const Executor& ex, const qmv_call& c, const std::byte* weights, int n_out, int k, act_rows acts, float* out,
            std::size_t out_stride, int rows) {
  ex.run(*c.entry, ops::qmv::problem{weights, c.weight->row_bytes, acts.data, acts.row_bytes, out, out_stride, n_out, k, rows});
}

/// One qmv over `rows` rows: x [rows][x.stride] f32 (k live) → out [rows][out.stride] (n_out
/// live), on weight rows starting at `weights` (row_bytes apart). Non-f32 activations are
/// quantized into `q8` first by the call's quantizer.
template <class Executor>
void matmul(const Executor& ex, const qmv_call& c, const std::byte* weights, int n_out, int k, const float* x,
            std::size_t x_stride, byte_rows q8, float* out, std::size_t out_stride, int rows) {
  qmv_on(ex, c, weights, n_out, k, quantize_for(ex, c, x, x_stride, q8, k, rows), out, out_stride, rows);
}

/// The whole weight of `c`.
template <class Executor>
void matmul(const Executor& ex, const qmv_call& c, f32_rows x, byte_rows q8, f32_rows out, int rows) {
  matmul(ex, c, c.weight->data, static_cast<int>(c.weight->rows), static_cast<int>(c.weight->cols), x.data, x.stride,
         q8, out.data, out.stride, rows);
}

/// An f32 stage that several qmv calls of a sublayer read, and its quantized stage: the first call
/// that needs a quantizer quantizes the rows, the next calls with the same quantizer, k and rows
/// read those blocks (a quantizer is a function of the rows, so the bits are those of quantizing
/// per call, with one launch instead of one a call: q_a, kv, the compressor and indexer
/// projections read x; q_b and the indexer's q_b read qr). A call with another quantizer
/// quantizes again (into the same stage). Valid while the f32 rows are not written: make one
/// after the entry that writes them, and use it before the next.
struct shared_input {
  f32_rows x;
  byte_rows q8;
  bool fuse = true;  // false (session_options::fuse_launches): every call quantizes, every group member runs alone
  const registry::entry<ops::quantize_rows::op>* holds = nullptr;  // the quantizer whose blocks q8 holds
  int k = 0, rows = 0;
};

/// The first `n_out` rows of `c`'s weight (its whole weight by default; more when the rows of
/// the weights that continue it are read too: matmul_group) on a shared input.
template <class Executor>
void matmul(const Executor& ex, const qmv_call& c, shared_input& in, f32_rows out, int rows, int n_out = -1) {
  const int k = static_cast<int>(c.weight->cols);
  if (n_out < 0) n_out = static_cast<int>(c.weight->rows);
  act_rows acts{in.q8.data, in.q8.stride};
  if (reads_f32(c)) {
    acts = {reinterpret_cast<const std::byte*>(in.x.data), in.x.stride * sizeof(float)};
#if defined(ORDO_MUTANT_SHARED_INPUT_ANY_QUANTIZER)
  } else if (!in.fuse || in.holds == nullptr || in.k != k || in.rows != rows) {  // mutant: reuses another quantizer's blocks
#else
  } else if (!in.fuse || in.holds != c.quantize || in.k != k || in.rows != rows) {
#endif
    acts = quantize_for(ex, c, in.x.data, in.x.stride, in.q8, k, rows);
    in.holds = c.quantize, in.k = k, in.rows = rows;
  }
  qmv_on(ex, c, c.weight->data, n_out, k, acts, out.data, out.stride, rows);
}

/// A same-input group (same_input_groups.hpp) on a shared input: member i's output is the column
/// range of `out` from the aligned sum of the rows before it; each run of members whose weights
/// continue one another is one qmv over the run's rows, the others one qmv each. Returns the
/// members' views. Throws when the members do not fit `out` (`width` floats).
template <std::size_t N, class Executor>
std::array<f32_rows, N> matmul_group(const Executor& ex, const std::array<const qmv_call*, N>& calls, shared_input& in,
                                     f32_rows out, std::size_t width, int rows) {
  std::array<f32_rows, N> views{};
  uint64_t column = 0;
  for (std::size_t i = 0; i < N; ++i) {
    if (!*calls[i]) throw std::logic_error("layer_step: a member of a same-input group has no planned qmv");
    views[i] = {out.data + column, out.stride};
    column = group_column_after(column, calls[i]->weight->rows);
  }
  if (column > width)
    throw std::logic_error("layer_step: " + calls[0]->weight->name + " and its group need " + std::to_string(column) +
                           " floats a row, the stage has " + std::to_string(width));
  for (std::size_t i = 0; i < N;) {
    std::size_t j = i + 1;
    uint64_t run_rows = calls[i]->weight->rows;
    for (; j < N && in.fuse && continues(*calls[j - 1], *calls[j]); ++j) run_rows += calls[j]->weight->rows;
    matmul(ex, *calls[i], in, views[i], rows, static_cast<int>(run_rows));
    i = j;
  }
  return views;
}

/// rmsnorm of `rows` rows of n_heads × head_dim (weight null: plain).
template <class Executor, class Entry>
void norm(const Executor& ex, const Entry& e, f32_rows x, const float* weight, f32_rows out, int n_heads, int head_dim,
          int rows, float eps) {
  ex.run(e, ops::rmsnorm::problem{x.data, x.stride, weight, out.data, out.stride, nullptr, 0, n_heads, head_dim, rows, eps});
}

/// The HC pre of a sublayer (A1–A5 / F1–F5): hc → x (normed by `norm_w`).
template <class Executor>
void hc_pre(const Executor& ex, const step_plan& plan, const block_binding& b, workspace& ws, model::ds4_role fn,
            model::ds4_role scale, model::ds4_role base, model::ds4_role norm_role, int n) {
  using model::ds4_role;
  const auto& h = *b.hparams;
  const auto& f = plan.families;
  const float eps = static_cast<float>(h.rms_eps);
  const int D = static_cast<int>(h.n_embd), HC = static_cast<int>(h.hc_dim());
  const f32_rows hc = f32_of(ws, stage::hc), flat = f32_of(ws, stage::hc_flat), mix = f32_of(ws, stage::hc_mix),
                 split = f32_of(ws, stage::hc_split), x_sub = f32_of(ws, stage::x_sub), x = f32_of(ws, stage::x);
  norm(ex, *f.norm_plain, hc, nullptr, flat, 1, HC, n, eps);                                   // A1
  matmul(ex, b.plan->at(fn), flat, byte_rows{nullptr, 0}, mix, n);                             // A2
  ex.run(*f.hc_split, ops::hc::problem{mix.data, mix.stride, b.vectors->at(scale), b.vectors->at(base), split.data,
                                      split.stride, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0, D, n,
                                      static_cast<float>(h.hc_eps)});                           // A3
  ex.run(*f.hc_weighted_sum, ops::hc::problem{nullptr, 0, nullptr, nullptr, split.data, split.stride, hc.data, hc.stride,
                                             x_sub.data, x_sub.stride, nullptr, 0, nullptr, 0, D, n,
                                             static_cast<float>(h.hc_eps)});                    // A4
  norm(ex, *f.norm_weighted, x_sub, b.vectors->at(norm_role), x, 1, D, n, eps);                // A5
}

/// The HC post (O6 / F15): hc = post·f + comb·hc, in place.
template <class Executor>
void hc_post(const Executor& ex, const step_plan& plan, const block_binding& b, workspace& ws, int n) {
  const f32_rows hc = f32_of(ws, stage::hc), split = f32_of(ws, stage::hc_split), out = f32_of(ws, stage::sublayer_out);
  ex.run(*plan.families.hc_post,
         ops::hc::problem{nullptr, 0, nullptr, nullptr, split.data, split.stride, hc.data, hc.stride, nullptr, 0, out.data,
                          out.stride, hc.data, hc.stride, static_cast<int>(b.hparams->n_embd), n,
                          static_cast<float>(b.hparams->hc_eps)});
}

}  // namespace step_detail

/// One layer step (see the header comment). `ws` stage `hc` holds the n rows' HC state on entry
/// and on return; `st` is the layer's state at frontier `rows.first`.
template <class Executor>
void layer_step(const step_plan& plan, const Executor& ex, workspace& ws, step_scratch& sc, layer_state& st,
                const block_binding& b, const step_rows& rows) {
  using namespace step_detail;
  using model::ds4_role;
  const model::ds4_hparams& h = *b.hparams;
  const block_plan& bp = *b.plan;
  const family_entries& fam = plan.families;
  const int n = rows.n;
  const int64_t f0 = rows.first;
  if (n < 1 || n > plan.tier) throw std::invalid_argument("layer_step: " + std::to_string(n) + " rows at tier " + std::to_string(plan.tier));
  if (st.frontier() != f0)
    throw state_error("layer_step: layer " + std::to_string(bp.layer) + " is at frontier " + std::to_string(st.frontier()) +
                      ", the rows start at " + std::to_string(f0));
  const float eps = static_cast<float>(h.rms_eps);
  const int D = static_cast<int>(h.n_embd), hd = static_cast<int>(h.head_dim), nh = static_cast<int>(h.n_head);
  const int n_rot = static_cast<int>(h.n_rot);
  const uint32_t ratio = bp.ratio;
  const auto vec = [&](ds4_role r) { return b.vectors->at(r); };
  const ops::rope::angles angles = layer_angles(h, ratio);
  if (rows.position_offset != 0 && ratio != 0)
    throw std::invalid_argument("layer_step: a position offset on a compressed layer (its windows follow the frontier)");
  ex.sync();  // the previous step's entries read cos_sin and the scratch this step rewrites
  for (int i = 0; i < n; ++i) angles.fill(double(f0 + i + rows.position_offset), sc.cos_sin.data() + std::size_t(i) * n_rot);
  ex.publish(sc.dev.cos_sin, sc.cos_sin.data(), std::size_t(n) * std::size_t(n_rot) * sizeof(float));

  const f32_rows x = f32_of(ws, stage::x), q = f32_of(ws, stage::q);
  const byte_rows x_q8 = bytes_of(ws, stage::x_q8), qr_q8 = bytes_of(ws, stage::qr_q8);

  // ---- 1. attention sublayer, batched stages --------------------------------------------------
  hc_pre(ex, plan, b, ws, ds4_role::hc_attn_fn, ds4_role::hc_attn_scale, ds4_role::hc_attn_base, ds4_role::attn_norm, n);
  shared_input x_in{x, x_q8, plan.fuse_launches};  // x is not written again until the FFN's hc_pre
  const auto [qr, kv] = matmul_group<2>(ex, {&bp.at(ds4_role::attn_q_a), &bp.at(ds4_role::attn_kv)}, x_in,
                                        f32_of(ws, stage::qr_kv), f32_width(ws, stage::qr_kv), n);  // A6, A10
  norm(ex, *fam.norm_weighted, qr, vec(ds4_role::attn_q_a_norm), qr, 1, static_cast<int>(h.q_lora_rank), n, eps);  // A7
  shared_input qr_in{qr, qr_q8, plan.fuse_launches};  // qr is final after A7
  matmul(ex, bp.at(ds4_role::attn_q_b), qr_in, q, n);                                           // A8
  norm(ex, *fam.norm_plain, q, nullptr, q, nh, hd, n, eps);                                     // A9
  norm(ex, *fam.norm_weighted, kv, vec(ds4_role::attn_kv_norm), kv, 1, hd, n, eps);             // A11
  ex.run(*fam.rope_forward, ops::rope::problem{q.data, q.stride, sc.dev.cos_sin, std::size_t(n_rot), nh, hd, n_rot, n});  // A12
  ex.run(*fam.rope_forward, ops::rope::problem{kv.data, kv.stride, sc.dev.cos_sin, std::size_t(n_rot), 1, hd, n_rot, n});
  const row_layout& raw = st.layout().raw;
  ex.run(*fam.kv_store, ops::kv_store::problem{kv.data, kv.stride, st.raw_base(), raw.stride / sizeof(uint16_t),
                                              int64_t(raw.rows), f0, hd, static_cast<int>(h.n_rope_free()), n});  // A13

  // Compressor stores (H1–H3, C1–C6) and the indexer queries (C7–C10). The projections of x are one
  // same-input group: H1–H2 at ratio 128; C1–C2, C4–C5 and C10 at ratio 4.
  auto store = [&](compressor_state& cs, f32_rows ckv, f32_rows csc, ds4_role ape_role,
                   const registry::entry<ops::compressor::store_op>& entry) {
    const compressor_layout& l = cs.layout();
    ex.run(entry, ops::compressor::store_problem{ckv.data, csc.data, ckv.stride, vec(ape_role), cs.kv_base(), cs.score_base(),
                                                 l.kv.stride / sizeof(float), int64_t(l.kv.rows), f0,
                                                 static_cast<int>(l.width), n});
  };
  const int ih = static_cast<int>(h.indexer_heads), id = static_cast<int>(h.indexer_dim);
  const f32_rows iq = f32_of(ws, stage::iq), cmp = f32_of(ws, stage::cmp_proj);
  const std::size_t cmp_width = f32_width(ws, stage::cmp_proj);
  f32_rows iw{nullptr, 0};
  if (ratio == 128) {
    const auto [ckv, csc] = matmul_group<2>(
        ex, {&bp.at(ds4_role::attn_compressor_kv), &bp.at(ds4_role::attn_compressor_gate)}, x_in, cmp, cmp_width, n);  // H1–H2
    store(*st.attn(), ckv, csc, ds4_role::attn_compressor_ape, *fam.store_ratio128);            // H3
  } else if (ratio == 4) {
    const auto [ckv, csc, ikv, isc, w] = matmul_group<5>(
        ex, {&bp.at(ds4_role::attn_compressor_kv), &bp.at(ds4_role::attn_compressor_gate), &bp.at(ds4_role::indexer_compressor_kv),
             &bp.at(ds4_role::indexer_compressor_gate), &bp.at(ds4_role::indexer_proj)},
        x_in, cmp, cmp_width, n);  // C1–C2, C4–C5, C10 (C9 is the indexer's prepare)
    iw = w;
    store(*st.attn(), ckv, csc, ds4_role::attn_compressor_ape, *fam.store_ratio4);              // C3
    store(*st.indexer(), ikv, isc, ds4_role::indexer_compressor_ape, *fam.store_ratio4);        // C6
    matmul(ex, bp.at(ds4_role::indexer_attn_q_b), qr_in, iq, n);                                // C7
    ex.run(*fam.rope_forward, ops::rope::problem{iq.data, iq.stride, sc.dev.cos_sin, std::size_t(n_rot), ih, id, n_rot, n});  // C8
  } else if (ratio != 0) {
    throw std::invalid_argument("layer_step: compress ratio " + std::to_string(ratio) + " of layer " + std::to_string(bp.layer));
  }

  // ---- 2. per-row phase: emissions, rows ascending --------------------------------------------
  auto emit_problem_at = [&](compressor_state& cs, int64_t p, const float* norm_w, float* out) {
    const compressor_layout& l = cs.layout();
    ex.sync();  // the previous emission reads emit_cos_sin
    angles.fill(double(p + 1 - int64_t(ratio)), sc.emit_cos_sin.data());
    ex.publish(sc.dev.emit_cos_sin, sc.emit_cos_sin.data(), std::size_t(n_rot) * sizeof(float));
    return ops::compressor::emit_problem{cs.kv_base(), cs.score_base(), l.kv.stride / sizeof(float),
                                         int64_t(l.kv.rows), p, norm_w, eps, sc.dev.emit_cos_sin, n_rot, out,
                                         static_cast<int>(l.out_width)};
  };
  if (ratio != 0) {
    for (int i = 0; i < n; ++i) {
      const int64_t p = f0 + i;
      if ((p + 1) % ratio != 0) continue;
      const int64_t c = (p + 1) / ratio - 1;
      compressor_state& cs = *st.attn();
      ex.run(ratio == 4 ? *fam.emit_ratio4 : *fam.emit_ratio128,
             emit_problem_at(cs, p, vec(ds4_role::attn_compressor_norm), cs.out_row(c)));        // H4 / C11
      if (ratio == 4) {
        compressor_state& is = *st.indexer();
        ex.run(*fam.emit_indexer, emit_problem_at(is, p, vec(ds4_role::indexer_compressor_norm), is.out_row(c)));  // C12
      }
    }
  }

  // ---- 3. indexer and attention of every row ---------------------------------------------------
  const int64_t window = h.sliding_window;
  const int64_t raw_lo = std::max<int64_t>(0, f0 - window + 1);  // the oldest raw row any row sees
  const int64_t raw_hi = f0 + n;                                  // one past the newest
  // The KV table's source list (kv_table_fill.hpp): the raw window's ring slots, then each
  // compressed row a list names; the executor copies the rows (ex.fill, queued after kv_store
  // and the emissions, so the host reads no state row and needs no sync for them).
  int32_t* const source = sc.table_source.data();
  for (int64_t p = raw_lo; p < raw_hi; ++p) {
    (void)st.raw_row(p);  // the window must be addressable (throws with the numbers)
    source[p - raw_lo] = ring_source(p % int64_t(raw.rows));
  }
  const int64_t n_raw = raw_hi - raw_lo;
  auto n_comp = [&](int64_t p) -> int64_t { return ratio ? (p + 1) / ratio : 0; };
  const int64_t comp_rows = n_comp(raw_hi - 1);
  if (uint64_t(n_raw + comp_rows) > sc.kv_rows) throw std::logic_error("layer_step: the KV table scratch is too small");
  // Compressed rows enter the table only when a list names them, at the next free slot after
  // the raw rows (a ratio-4 layer's top-k lists name <= top_k of its ctx/4 rows: copying them all
  // cost O(context) per layer). A list's order is unchanged, so attention sees the same rows in
  // the same order: the slot numbers are not part of the arithmetic.
  std::vector<int32_t>& slot_of = sc.slot_of;  // reused: its capacity stays across layers and steps
  slot_of.assign(std::size_t(comp_rows), -1);
  int32_t comp_used = 0;
  auto table_slot = [&](int64_t c) {
    int32_t& slot = slot_of[std::size_t(c)];
    if (slot < 0) {
      (void)st.attn()->out_row(c);  // the row must exist (throws with the numbers)
      slot = static_cast<int32_t>(n_raw) + comp_used++;
      source[slot] = static_cast<int32_t>(c);
    }
    return slot;
  };
  const int top_k = static_cast<int>(h.indexer_top_k);
  bool any_selects = false;
  for (int i = 0; i < n; ++i) any_selects |= ratio == 4 && n_comp(f0 + i) > top_k;
  const f32_rows idx_scores = f32_of(ws, stage::idx_scores);
  const std::size_t top_stride = ws.stride(stage::idx_top) / sizeof(int32_t);
  int32_t* idx_top = ws.row_as<int32_t>(stage::idx_top, 0);
  if (any_selects) {  // C9, C13, C14
    compressor_state& is = *st.indexer();
    for (int i = 0; i < n; ++i) sc.n_visible[i] = static_cast<int32_t>(n_comp(f0 + i));
    ex.publish(sc.dev.n_visible, sc.n_visible.data(), std::size_t(n) * sizeof(int32_t));
    ex.run(*fam.indexer,
           ops::indexer::problem{iq.data, iq.stride, iw.data, iw.stride, static_cast<float>(1.0 / std::sqrt(double(id) * ih)),
                                 is.rows_base(), is.layout().rows.stride / sizeof(float), static_cast<int>(comp_rows),
                                 sc.dev.n_visible, top_k, idx_top, top_stride, sc.n_selected.data(), idx_scores.data,
                                 idx_scores.stride, sc.q_fp4.data(), nullptr, 0, ih, id, n});
#ifndef ORDO_MUTANT_NO_INDEXER_SYNC  // mutation-check targets only: the lists built before the indexer ran
    ex.sync();  // the gather lists read n_selected and idx_top
#endif
    // The selections to the host by a copy (arena_copy.hpp: a host read would move the
    // workspace's page to the host and the next layer's indexer would fault it back).
    sc.selected.resize(std::size_t(n) * std::size_t(top_k));
    copy_rows_out(ws.layout().memory, sc.selected.data(), std::size_t(top_k) * sizeof(int32_t), idx_top,
                  top_stride * sizeof(int32_t), std::size_t(top_k) * sizeof(int32_t), std::size_t(n));
  }
  int max_listed = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t p = f0 + i;
    int32_t* list = sc.gather.data() + std::size_t(i) * sc.gather_stride;
    int k = 0;
#ifdef ORDO_MUTANT_ROWS_SEE_AHEAD  // mutation-check targets only: a row also sees the raw rows written ahead of it
    const int64_t newest = raw_hi - 1;
#else
    const int64_t newest = p;
#endif
    for (int64_t r = std::max<int64_t>(0, p - window + 1); r <= newest; ++r) list[k++] = static_cast<int32_t>(r - raw_lo);
    const int64_t nc = n_comp(p);
    if (ratio == 4 && nc > top_k) {
      for (int j = 0; j < sc.n_selected[i]; ++j) list[k++] = table_slot(sc.selected[std::size_t(i) * std::size_t(top_k) + j]);
    } else {
      for (int64_t c = 0; c < nc; ++c) list[k++] = table_slot(c);
    }
    sc.n_listed[i] = k;
    max_listed = std::max(max_listed, k);
  }
  // The lists, their counts and the table's source list where the entries read them (a row's
  // list is read up to its count: the rows' prefixes lie within the first (n − 1)·stride + max_listed).
  const int n_table = static_cast<int>(n_raw + comp_used);
  ex.publish(sc.dev.table_source, source, std::size_t(n_table) * sizeof(int32_t));
  ex.publish(sc.dev.gather, sc.gather.data(), (std::size_t(n - 1) * sc.gather_stride + std::size_t(max_listed)) * sizeof(int32_t));
  ex.publish(sc.dev.n_listed, sc.n_listed.data(), std::size_t(n) * sizeof(int32_t));
  compressor_state* const comp = st.attn();
  ex.fill(kv_table_fill{sc.kv_table.data(), std::size_t(hd), st.raw_base(), raw.stride / sizeof(uint16_t),
                        comp ? comp->rows_base() : nullptr, comp ? comp->layout().rows.stride / sizeof(float) : 0, sc.dev.table_source,
                        n_table, hd});
  const f32_rows heads = f32_of(ws, stage::heads);
  // The split schedule (chunks in parallel, the whole schedule's bits) keeps its per-chunk slots
  // in attn_split, read densely from row 0: the stage must hold the entry's count for n rows.
  float* const attn_slots = ws.row_as<float>(stage::attn_split, 0);
  const ops::attention::problem attn{q.data, q.stride, sc.kv_table.data(), std::size_t(hd),
                                     n_table, sc.dev.gather, sc.gather_stride,
                                     sc.dev.n_listed, max_listed, vec(ds4_role::attn_sinks),
                                     static_cast<float>(1.0 / std::sqrt(double(hd))), heads.data, heads.stride,
                                     attn_slots, nh, hd, n};
  if (fam.attention->info.workspace(attn) * sizeof(float) > std::size_t(n) * ws.stride(stage::attn_split))
    throw std::logic_error("layer_step: the attn_split workspace stage is smaller than the attention entry's slots");
  ex.run(*fam.attention, attn);                                                                 // W1 / H5 / C15

  // ---- 4. output of the attention sublayer -----------------------------------------------------
  ex.run(*fam.rope_inverse, ops::rope::problem{heads.data, heads.stride, sc.dev.cos_sin, std::size_t(n_rot), nh, hd, n_rot, n});  // O1
  {
    const qmv_call& oa = bp.at(ds4_role::attn_output_a);
    const int rank = static_cast<int>(h.o_lora_rank), groups = static_cast<int>(h.o_groups);
    const int gd = static_cast<int>(h.heads_per_group()) * hd;
    const byte_rows heads_q8 = bytes_of(ws, stage::heads_q8);
    const f32_rows low = f32_of(ws, stage::low);
    // O2–O3: group g's heads are its own activation row segment (its blocks start at g·gd, a
    // multiple of the activation block). A quantizer works block by block, so the whole row's
    // blocks, quantized in one launch, are each segment's blocks as quantizing it alone gives.
    if (!reads_f32(oa) && gd % oa.quantize->info.block_elems != 0)
      throw std::logic_error("layer_step: attn_output_a's head groups (" + std::to_string(gd) + " wide) split an activation block");
    const std::size_t seg_bytes = reads_f32(oa) ? std::size_t(gd) * sizeof(float)
                                                : std::size_t(gd / oa.quantize->info.block_elems) * oa.quantize->info.block_bytes;
    const act_rows all_heads = plan.fuse_launches ? quantize_for(ex, oa, heads.data, heads.stride, heads_q8, groups * gd, n) : act_rows{};
    for (int g = 0; g < groups; ++g) {
      const act_rows segment = plan.fuse_launches  // unfused: each group's segment quantized alone, into the stage's start
                                   ? act_rows{all_heads.data + std::size_t(g) * seg_bytes, all_heads.row_bytes}
                                   : quantize_for(ex, oa, heads.data + std::size_t(g) * gd, heads.stride, heads_q8, gd, n);
      qmv_on(ex, oa, oa.weight->data + std::size_t(g) * rank * oa.weight->row_bytes, rank, gd, segment,
             low.data + std::size_t(g) * rank, low.stride, n);
    }
    matmul(ex, bp.at(ds4_role::attn_output_b), low, bytes_of(ws, stage::low_q8), f32_of(ws, stage::sublayer_out), n);  // O4–O5
  }
  hc_post(ex, plan, b, ws, n);                                                                  // O6

  // ---- FFN sublayer ------------------------------------------------------------------------------
  hc_pre(ex, plan, b, ws, ds4_role::hc_ffn_fn, ds4_role::hc_ffn_scale, ds4_role::hc_ffn_base, ds4_role::ffn_norm, n);  // F1–F5
  const f32_rows logits = f32_of(ws, stage::router_logits);
  matmul(ex, bp.at(ds4_role::ffn_gate_inp), x, x_q8, logits, n);                                // F6
  const std::size_t sel_stride = ws.stride(stage::expert_ids) / sizeof(int32_t);
  int32_t* ids = ws.row_as<int32_t>(stage::expert_ids, 0);
  float* weights = ws.row_as<float>(stage::expert_weights, 0);
  if (ws.stride(stage::expert_weights) / sizeof(float) != sel_stride) throw std::logic_error("layer_step: router output strides differ");
  const int n_used = static_cast<int>(h.n_expert_used), n_ff = static_cast<int>(h.n_ff_exp);
  {
    const weight_view* tid2eid = bp.hash ? &b.weights->need(ds4_role::ffn_gate_tid2eid) : nullptr;
    ops::router::problem rp{logits.data, logits.stride, bp.hash ? nullptr : vec(ds4_role::exp_probs_b),
                            tid2eid ? reinterpret_cast<const int32_t*>(tid2eid->data) : nullptr, rows.tokens,
                            tid2eid ? static_cast<int>(tid2eid->rows) : 0, ids, weights, sel_stride,
                            static_cast<int>(h.n_expert), n_used, n, static_cast<float>(h.expert_weights_scale),
                            6.103515625e-5f};
    ex.run(bp.hash ? *fam.route_hash : *fam.route_top_k, rp);                                   // F7
  }
  const float clamp = static_cast<float>(h.clamp_limit(bp.layer));
  {
    // F8–F14: the routed experts and the shared expert as moe's two grouped launches. mid and
    // mid_q8 hold [n][n_used + 1] slot rows packed (n_ff floats / mid_act_row_bytes apart) in
    // their stages' allocations: only moe reads them.
    const moe_calls& mc = bp.moe;
    if (!mc) throw std::runtime_error("layer_step: layer " + std::to_string(bp.layer) + " has no moe entries");
    const byte_rows xr = bytes_of(ws, stage::x_q8k), xs = bytes_of(ws, stage::x_q8);
    ex.run(*mc.quantize_routed, ops::quantize_rows::problem{x.data, x.stride, xr.data, xr.stride, D, n});
    const bool one_act = mc.quantize_shared == mc.quantize_routed;
    if (!one_act) ex.run(*mc.quantize_shared, ops::quantize_rows::problem{x.data, x.stride, xs.data, xs.stride, D, n});
    const byte_rows xsh = one_act ? xr : xs;
    const f32_rows out = f32_of(ws, stage::sublayer_out);
    auto experts = [](const weight_view* w) { return ops::moe::expert_tensor{w->data, w->row_bytes, w->rows * w->row_bytes}; };
    auto matrix = [](const weight_view* w) { return ops::moe::matrix{w->data, w->row_bytes}; };
    ops::moe::problem mp{};
    mp.x_routed = xr.data;
    mp.x_routed_row_bytes = xr.stride;
    mp.x_shared = xsh.data;
    mp.x_shared_row_bytes = xsh.stride;
    mp.expert_ids = ids;
    mp.expert_weights = weights;
    mp.route_stride = sel_stride;
    mp.gate = experts(mc.gate);
    mp.up = experts(mc.up);
    mp.down = experts(mc.down_w);
    mp.shared_gate = matrix(mc.shared_gate);
    mp.shared_up = matrix(mc.shared_up);
    mp.shared_down = matrix(mc.shared_down);
    mp.mid = ws.row_as<float>(stage::mid, 0);
    mp.mid_stride = std::size_t(n_ff);
    mp.mid_act = ws.row(stage::mid_q8, 0);
    mp.mid_act_row_bytes = mc.mid_act_row_bytes;
    mp.out = out.data;
    mp.out_stride = out.stride;
    mp.n_embd = D;
    mp.n_ff = n_ff;
    mp.n_expert = static_cast<int>(mc.gate->experts);
    mp.n_used = n_used;
    mp.rows = n;
    mp.clamp = clamp;
    ex.run(*mc.gate_up, mp);                                                                    // F8–F10, F11–F13
    ex.run(*mc.down, mp);                                                                       // F14
  }
  hc_post(ex, plan, b, ws, n);                                                                  // F15

  st.advance(n);
}

/// The output head (docs/engine.md §5.7) of `n` rows of stage `hc`: A1 over the flat state →
/// qmv output_hc_fn → hc.collapse → rmsnorm output_norm → qmv output → stage `logits`.
/// `b` binds the globals block (its plan is step_plan::head).
template <class Executor>
void head_step(const step_plan& plan, const Executor& ex, workspace& ws, const block_binding& b, int n) {
  using namespace step_detail;
  using model::ds4_role;
  const auto& h = *b.hparams;
  const auto& fam = plan.families;
  const float eps = static_cast<float>(h.rms_eps);
  const int D = static_cast<int>(h.n_embd), HC = static_cast<int>(h.hc_dim());
  const f32_rows hc = f32_of(ws, stage::hc), flat = f32_of(ws, stage::hc_flat), mix = f32_of(ws, stage::hc_mix),
                 x_sub = f32_of(ws, stage::x_sub), x = f32_of(ws, stage::x);
  norm(ex, *fam.norm_plain, hc, nullptr, flat, 1, HC, n, eps);
  matmul(ex, b.plan->at(ds4_role::output_hc_fn), flat, byte_rows{nullptr, 0}, mix, n);
  ex.run(*fam.hc_collapse, ops::hc::problem{mix.data, mix.stride, b.vectors->at(ds4_role::output_hc_scale),
                                           b.vectors->at(ds4_role::output_hc_base), nullptr, 0, hc.data, hc.stride,
                                           x_sub.data, x_sub.stride, nullptr, 0, nullptr, 0, D, n,
                                           static_cast<float>(h.hc_eps)});
  norm(ex, *fam.norm_weighted, x_sub, b.vectors->at(ds4_role::output_norm), x, 1, D, n, eps);
  matmul(ex, b.plan->at(ds4_role::output), x, bytes_of(ws, stage::x_q8), f32_of(ws, stage::logits), n);
}

}  // namespace ordo::runtime
