/// The MTP block on the engine's families (ds4-model.md §7.1, docs/decisions.md D1–D4), a
/// template over the executor like layer_step: for n rows, row i pairing the embedding of
/// `tokens[i]` with a hidden HC state (the target's final state of the previous position, or the
/// block's own output state when a draft chain recurses),
///   1. the input mixer `mtp_mix`: H_a = e_proj·enorm(emb) + h_proj·hnorm(hidden_a) per stream a
///      (llama.cpp naming: the two halves of nextn.eh_proj's input columns, the same products);
///   2. the block as a ratio-0 layer (`layer_step` on the MTP ring, whose row r is position r + 1);
///   3. the head: `head_step` on a head binding whose HC head and norm are the MTP's (D4: ds4
///      naming `mtp.0.hc_head_*` + `mtp.0.norm`; llama naming the main output HC head and
///      `nextn.shared_head_norm`, else `output_norm`) and whose LM head is the model's `output`.
/// Every weight-carrying stage runs at the step's tier, so a catch-up batch of n rows gives each
/// row the bits of that row alone (E1). Interim (until a family has them): the embedding gather
/// and the e + h sum run on the host (one float add per element, the reference's order e + h),
/// after a sync (the GPU's products are asynchronous).
#pragma once
#include <cstring>
#include <stdexcept>
#include <string>

#include "ordo/quant/formats.hpp"
#include "ordo/runtime/layer_step.hpp"

namespace ordo::runtime {

/// The roles the mixer reads, resolved for the file's naming once.
struct mtp_mixer {
  qmv_call e_proj, h_proj;        // [n_embd] → [n_embd]; column slices of eh_proj under llama naming
  uint64_t e_col_offset = 0;      // bytes into each weight row where the slice starts
  uint64_t h_col_offset = 0;
  const float* enorm = nullptr;   // [n_embd]
  const float* hnorm = nullptr;   // [n_embd]
};

/// The mixer of a plan's MTP block (plan.mtp) over vectors `v` of the block `w`.
inline mtp_mixer bind_mtp_mixer(const block_plan& p, const block_weights& w, const block_vectors& v, uint64_t n_embd) {
  using model::ds4_role;
  mtp_mixer m;
  m.enorm = v.at(ds4_role::mtp_enorm);
  m.hnorm = v.at(ds4_role::mtp_hnorm);
  if (!m.enorm || !m.hnorm) throw model::ds4_error(w.prefix + "enorm / hnorm: needed by the MTP block but absent");
  if (p.at(ds4_role::mtp_e_proj)) {
    m.e_proj = p.at(ds4_role::mtp_e_proj);
    m.h_proj = p.at(ds4_role::mtp_h_proj);
    if (!m.h_proj) (void)w.need(ds4_role::mtp_h_proj);  // throws naming the tensor
  } else {
    // llama.cpp: eh_proj [2·n_embd → n_embd] over (enorm(embedding) | hnorm(stream)).
    const qmv_call& eh = p.at(ds4_role::mtp_eh_proj);
    if (!eh) (void)w.need(ds4_role::mtp_e_proj);
    const quant::format_info* f = quant::find_format(static_cast<uint32_t>(eh.weight->format));
    if (!f || n_embd % f->block_elems != 0 || eh.weight->cols != 2 * n_embd)
      throw model::ds4_error(eh.weight->name + ": cannot split into e_proj | h_proj halves of " + std::to_string(n_embd));
    m.e_proj = m.h_proj = eh;
    m.h_col_offset = n_embd / f->block_elems * f->block_bytes;
  }
  return m;
}

/// The head binding of the MTP block (D4) as the roles head_step reads.
struct mtp_head {
  block_plan plan;       // output_hc_fn: the MTP's HC head fn (or the main one), output: the LM head
  block_vectors vectors; // output_hc_scale / output_hc_base / output_norm: the MTP's
};

inline mtp_head bind_mtp_head(const step_plan& sp, const block_weights& mtp, const block_vectors& mtp_v,
                              const block_vectors& global_v) {
  using model::ds4_role;
  const auto ix = [](ds4_role r) { return static_cast<std::size_t>(r); };
  mtp_head h;
  h.plan = sp.head;
  const bool own = static_cast<bool>(sp.mtp->at(ds4_role::mtp_hc_head_fn));
  if (own) {
    h.plan.qmv[ix(ds4_role::output_hc_fn)] = sp.mtp->at(ds4_role::mtp_hc_head_fn);
    h.vectors.v[ix(ds4_role::output_hc_scale)] = mtp_v.v[ix(ds4_role::mtp_hc_head_scale)];
    h.vectors.v[ix(ds4_role::output_hc_base)] = mtp_v.v[ix(ds4_role::mtp_hc_head_base)];
    if (!h.vectors.at(ds4_role::output_hc_scale) || !h.vectors.at(ds4_role::output_hc_base))
      (void)mtp.need(ds4_role::mtp_hc_head_scale), (void)mtp.need(ds4_role::mtp_hc_head_base);
  } else {
    h.vectors.v[ix(ds4_role::output_hc_scale)] = global_v.v[ix(ds4_role::output_hc_scale)];
    h.vectors.v[ix(ds4_role::output_hc_base)] = global_v.v[ix(ds4_role::output_hc_base)];
  }
  const auto& norm = mtp_v.v[ix(ds4_role::mtp_norm)];
  if (norm.empty() && own) (void)mtp.need(ds4_role::mtp_norm);
  h.vectors.v[ix(ds4_role::output_norm)] = norm.empty() ? global_v.v[ix(ds4_role::output_norm)] : norm;
  return h;
}

/// Step 1 for n rows: on entry stage `x_sub` holds the embedding rows [n_embd] and stage
/// `hc_next` the hidden HC rows [hc_dim]; on return stage `hc` holds the block's input H.
template <class Executor>
void mtp_mix(const step_plan& plan, const Executor& ex, workspace& ws, const model::ds4_hparams& h, const mtp_mixer& m,
             int n) {
  using namespace step_detail;
  const float eps = static_cast<float>(h.rms_eps);
  const int D = static_cast<int>(h.n_embd), HC = static_cast<int>(h.hc_count);
  const f32_rows emb = f32_of(ws, stage::x_sub), x = f32_of(ws, stage::x), e = f32_of(ws, stage::sublayer_out),
                 hid = f32_of(ws, stage::hc_next), flat = f32_of(ws, stage::hc_flat), hc = f32_of(ws, stage::hc);
  const byte_rows q8 = bytes_of(ws, stage::x_q8);
  norm(ex, *plan.families.norm_weighted, emb, m.enorm, x, 1, D, n, eps);
  matmul(ex, m.e_proj, m.e_proj.weight->data + m.e_col_offset, D, D, x.data, x.stride, q8, e.data, e.stride, n);
  norm(ex, *plan.families.norm_weighted, hid, m.hnorm, flat, HC, D, n, eps);  // each stream alone, one weight
  for (int a = 0; a < HC; ++a)
    matmul(ex, m.h_proj, m.h_proj.weight->data + m.h_col_offset, D, D, flat.data + std::size_t(a) * D, flat.stride, q8,
           hc.data + std::size_t(a) * D, hc.stride, n);
  ex.sync();  // the host sums the two products next
  for (int i = 0; i < n; ++i)
    for (int a = 0; a < HC; ++a)
      for (int j = 0; j < D; ++j) hc.row(i)[std::size_t(a) * D + j] = e.row(i)[j] + hc.row(i)[std::size_t(a) * D + j];
}

}  // namespace ordo::runtime
