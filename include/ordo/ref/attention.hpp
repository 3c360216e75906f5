/// The attention sublayer of the reference (ds4-model.md §3.4): Q through a LoRA with per-head
/// RMSNorm, one shared latent KV row (K = V), tail RoPE, sink-column softmax over the raw window
/// plus the visible compressed rows (all of them on ratio-128 layers, the indexer's top-k on
/// ratio-4 layers), inverse RoPE on the output and the grouped low-rank output projection.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "ordo/ref/basic.hpp"
#include "ordo/ref/compressor.hpp"
#include "ordo/ref/config.hpp"
#include "ordo/ref/rope.hpp"
#include "ordo/ref/rounding.hpp"
#include "ordo/ref/state.hpp"
#include "ordo/ref/weights.hpp"

namespace ordo::ref {

/// Sink-column softmax for one head: the sink logit joins the denominator only.
inline vec sink_attention_head(const double* q, const std::vector<const vec*>& rows, double sink, double scale,
                               int head_dim) {
  const Eigen::Map<const vec> qh(q, head_dim);
  std::vector<double> z(rows.size());
  double m = sink;
  for (std::size_t j = 0; j < rows.size(); ++j) {
    z[j] = scale * qh.dot(*rows[j]);
    m = std::max(m, z[j]);
  }
  double den = std::exp(sink - m);
  vec out = vec::Zero(head_dim);
  for (std::size_t j = 0; j < rows.size(); ++j) {
    const double e = std::exp(z[j] - m);
    den += e;
    out += e * *rows[j];
  }
  return out / den;
}

/// Indices of the k largest scores, ties broken toward the lowest index, in ascending order.
inline std::vector<int> top_k_lowest_index(const std::vector<double>& score, int k) {
  std::vector<int> idx(score.size());
  std::iota(idx.begin(), idx.end(), 0);
#ifdef ORDO_MUTANT_TOPK_TIES_HIGHEST  // mutation-check test targets only: ties toward the highest index
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return score[a] > score[b] || (score[a] == score[b] && a > b); });
#else
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return score[a] > score[b]; });
#endif
  idx.resize(std::min<std::size_t>(idx.size(), static_cast<std::size_t>(k)));
  std::sort(idx.begin(), idx.end());
  return idx;
}

/// Indexer scores of every compressed row for the token: sum_h relu(k . q_h) * w_h.
inline std::vector<double> indexer_scores(const layer_weights& w, const config& c, const vec& qr_n, const vec& x,
                                          const std::vector<vec>& keys, int pos, const simulations& sims) {
  const int nh = c.indexer_heads, hd = c.indexer_dim;
  vec iq = w.indexer.q_b * qr_n;  // [nh * hd]
  rope_heads(iq, hd, layer_rope(c, 4), pos, rope_direction::forward);
  if (sims.indexer_fp4)
    for (int h = 0; h < nh; ++h) hadamard_fp4_roundtrip(iq.data() + h * hd, hd);
  const vec iw = (w.indexer.proj * x) / std::sqrt(static_cast<double>(hd) * nh);
  std::vector<double> score(keys.size());
  for (std::size_t ci = 0; ci < keys.size(); ++ci) {
    double s = 0;
    for (int h = 0; h < nh; ++h) s += std::max(0.0, keys[ci].dot(iq.segment(h * hd, hd))) * iw[h];
    score[ci] = s;
  }
  return score;
}

/// One token through the attention sublayer. x is the attention-normed sublayer input; the
/// layer's state gains this token's raw row (and compressed rows when a window completes).
inline vec attention_forward(const layer_weights& w, const config& c, int ratio, layer_state& st, const vec& x,
                             int pos, const simulations& sims) {
  const rope_params rope = layer_rope(c, ratio);
  const int hd = c.head_dim, nh = c.n_head;

  const vec qr_n = rms_norm(w.q_a * x, w.q_a_norm, c.rms_eps);  // [q_lora_rank]
  vec q = w.q_b * qr_n;                                           // [nh * hd]
  for (int h = 0; h < nh; ++h) q.segment(h * hd, hd) = rms_norm_plain(q.segment(h * hd, hd), c.rms_eps);
  rope_heads(q, hd, rope, pos, rope_direction::forward);

  vec kv = rms_norm(w.kv * x, w.kv_norm, c.rms_eps);  // [hd]
  rope_tail(kv.data(), hd, rope, pos, rope_direction::forward);
  if (sims.kv_fp8) fp8_kv_roundtrip(kv, c.n_rope_free());
  if (sims.raw_f16) kv = kv.unaryExpr([](double v) { return round_to_f16(v); });
  st.raw.push_back(kv);
  while (st.raw.size() > c.sliding_window) st.raw.pop_front();

  std::vector<const vec*> rows;
  for (const vec& r : st.raw) rows.push_back(&r);

  if (ratio != 0) {
    // The window this token completes is emitted before attention: the token sees it.
    if (auto row = compressor_step(st.compressor, w.compressor, x, pos, rope, c.rms_eps)) {
      if (sims.kv_fp8) fp8_kv_roundtrip(*row, c.n_rope_free());
      st.comp.push_back(std::move(*row));
    }
    if (ratio == 4) {
      if (auto key = compressor_step(st.indexer_compressor, w.indexer.compressor, x, pos, rope, c.rms_eps)) {
        if (sims.indexer_fp4) hadamard_fp4_roundtrip(key->data(), c.indexer_dim);
        st.index_keys.push_back(std::move(*key));
      }
    }
    if (ratio == 4 && st.comp.size() > c.indexer_top_k) {
      const auto score = indexer_scores(w, c, qr_n, x, st.index_keys, pos, sims);
      for (int ci : top_k_lowest_index(score, c.indexer_top_k)) rows.push_back(&st.comp[ci]);
    } else {
      for (const vec& r : st.comp) rows.push_back(&r);
    }
  }

  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  vec heads(nh * hd);
  for (int h = 0; h < nh; ++h)
    heads.segment(h * hd, hd) = sink_attention_head(q.data() + h * hd, rows, w.sinks[h], scale, hd);
  rope_heads(heads, hd, rope, pos, rope_direction::inverse);

  // Grouped output LoRA: group g (heads_per_group consecutive heads) uses rank rows g*rank...
  const int gd = c.heads_per_group() * hd, rank = c.o_lora_rank;
  vec low(static_cast<int>(c.o_groups) * rank);
  for (int g = 0; g < static_cast<int>(c.o_groups); ++g)
    low.segment(g * rank, rank) = w.out_a.middleRows(g * rank, rank) * heads.segment(g * gd, gd);
  return w.out_b * low;
}

}  // namespace ordo::ref
