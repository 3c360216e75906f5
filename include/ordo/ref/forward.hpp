/// The whole reference forward pass for one token at the sequence's next position (ds4-model.md
/// §4): embedding into hc_count streams, per layer HC pre → attention → HC post → HC pre → MoE →
/// HC post, then the output collapse, final norm and LM head. A prompt is this path token after
/// token (prefill has the same per-token semantics, §5). Also the MTP block (§7.1).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/ref/attention.hpp"
#include "ordo/ref/basic.hpp"
#include "ordo/ref/config.hpp"
#include "ordo/ref/hc.hpp"
#include "ordo/ref/moe.hpp"
#include "ordo/ref/state.hpp"
#include "ordo/ref/weights.hpp"

namespace ordo::ref {

/// One decoder layer for one token: updates the HC state and the layer's sequence state.
inline hc_state layer_forward(const layer_weights& w, const config& c, int layer, int ratio, layer_state& st,
                              const hc_state& h, int token, int pos, const simulations& sims) {
  const hc_split a = hc_pre(h, w.hc_attn, c);
  const vec attn = attention_forward(w, c, ratio, st, rms_norm(a.x_sub, w.attn_norm, c.rms_eps), pos, sims);
  const hc_state h1 = hc_post(attn, h, a);
  const hc_split f = hc_pre(h1, w.hc_ffn, c);
  const vec ffn = moe_forward(w, c, layer, rms_norm(f.x_sub, w.ffn_norm, c.rms_eps), token);
  return hc_post(ffn, h1, f);
}

inline vec lm_head(const model_weights& m, const config& c, const hc_state& h, const hc_head_weights& head,
                   const vec& norm) {
  return m.output * rms_norm(hc_collapse(h, head, c), norm, c.rms_eps);
}

struct token_result {
  vec logits;       // [n_vocab]
  hc_state hidden;  // [hc_count, n_embd] the final state before the output collapse (feeds MTP)
};

/// Consumes `token` at position state.n_pos and returns the logits predicting the next token.
inline token_result forward_token(const model_weights& m, const config& c, sequence_state& state, int token,
                                  const simulations& sims) {
  if (token < 0 || token >= static_cast<int>(c.n_vocab))
    throw std::out_of_range("ref::forward_token: token id " + std::to_string(token) + " outside vocab of " +
                            std::to_string(c.n_vocab));
  const int pos = state.n_pos;
  hc_state h = hc_from_embedding(m.token_embd.row(token).transpose(), c.hc_count);
  for (int il = 0; il < static_cast<int>(c.n_layer); ++il)
    h = layer_forward(m.layers[il], c, il, c.ratio(il), state.layers[il], h, token, pos, sims);
  ++state.n_pos;
  token_result r;
  r.logits = lm_head(m, c, h, m.hc_head, m.output_norm);
  r.hidden = std::move(h);
  return r;
}

/// State of the MTP block: its own raw window (it runs as a ratio-0 layer).
struct mtp_state {
  layer_state layer;
};

/// One MTP step: mixes the embedding of `token` with a hidden HC state `prev` and runs the MTP
/// block at position `pos`. Which (token, hidden, pos) triple to feed is the caller's convention
/// (docs/decisions.md); the block itself is this function. The MTP block never hash-routes.
inline token_result mtp_forward(const model_weights& m, const config& c, int block, mtp_state& st, int token,
                                const hc_state& prev, int pos, const simulations& sims) {
  const mtp_weights& w = m.mtp.at(static_cast<std::size_t>(block));
  const vec e = w.e_proj * rms_norm(m.token_embd.row(token).transpose(), w.enorm, c.rms_eps);
  hc_state h(c.hc_count, c.n_embd);
  for (int a = 0; a < static_cast<int>(c.hc_count); ++a)
    h.row(a) = (e + w.h_proj * rms_norm(prev.row(a).transpose(), w.hnorm, c.rms_eps)).transpose();
  // Layer index n_layer + block: past the hash layers, ratio 0 (plain RoPE, raw window only).
  h = layer_forward(w.block, c, static_cast<int>(c.n_layer) + block, 0, st.layer, h, token, pos, sims);
  token_result r;
  r.logits = lm_head(m, c, h, w.hc_head, w.norm);
  r.hidden = std::move(h);
  return r;
}

}  // namespace ordo::ref
