/// The MoE FFN sublayer of the reference (ds4-model.md §3.5): sqrt(softplus) router scores, a
/// selection-only bias (or a token-id hash table on the first layers), renormalized weights
/// times expert_weights_scale, clamped SwiGLU experts and one always-on shared expert.
#pragma once
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/ref/basic.hpp"
#include "ordo/ref/config.hpp"
#include "ordo/ref/weights.hpp"

namespace ordo::ref {

/// silu(min(g, limit)) * clamp(u, -limit, limit); limit 0 means no clamp.
/// ORDO_MUTANT_SWIGLU_* are defined only in mutation-check test targets (tests/parity, tests/unit/ref):
/// they break this rule on purpose so those tests can show the suite detects it.
inline vec clamped_swiglu(const vec& g, const vec& u, double limit) {
#ifdef ORDO_MUTANT_SWIGLU_NO_CLAMP
  limit = 0;
#endif
  vec out(g.size());
  for (Eigen::Index i = 0; i < g.size(); ++i) {
#ifdef ORDO_MUTANT_SWIGLU_GATE_BOTH_SIDES
    const double gi = limit > 0 ? std::clamp(g[i], -limit, limit) : g[i];
#else
    const double gi = limit > 0 ? std::min(g[i], limit) : g[i];
#endif
    const double ui = limit > 0 ? std::clamp(u[i], -limit, limit) : u[i];
    out[i] = silu(gi) * ui;
  }
  return out;
}

struct routing {
  std::vector<int> experts;    // [n_expert_used]
  std::vector<double> weight;  // [n_expert_used]
};

/// Routes one token. Hash layers take the experts from tid2eid[token]; the others take the top
/// n_expert_used of (score + bias), ties toward the lowest expert id. Weights always come from
/// the unbiased scores.
inline routing route(const layer_weights& w, const config& c, int layer, const vec& x, int token) {
  const vec logits = w.router * x;
  vec p(logits.size());
  for (Eigen::Index e = 0; e < p.size(); ++e) p[e] = std::sqrt(softplus(logits[e]));
  routing r;
  if (layer < static_cast<int>(c.hash_layer_count)) {
    if (token < 0 || static_cast<std::size_t>(token) >= w.tid2eid.size())
      throw std::out_of_range("ref::route: token " + std::to_string(token) + " outside tid2eid of layer " +
                              std::to_string(layer));
    r.experts.assign(w.tid2eid[token].begin(), w.tid2eid[token].end());
  } else {
    vec sel = p;
    if (w.router_bias.size() > 0) sel += w.router_bias;
    std::vector<int> idx(sel.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return sel[a] > sel[b]; });
    r.experts.assign(idx.begin(), idx.begin() + c.n_expert_used);
  }
  double sum = 0;
  for (int e : r.experts) sum += p[e];
  sum = std::max(sum, router_sum_floor);
  for (int e : r.experts) r.weight.push_back(p[e] / sum * c.expert_weights_scale);
  return r;
}

/// One token through the FFN sublayer; x is the ffn-normed sublayer input.
inline vec moe_forward(const layer_weights& w, const config& c, int layer, const vec& x, int token) {
  const double limit = c.clamp_limit(layer);
  const routing r = route(w, c, layer, x, token);
  vec out = vec::Zero(c.n_embd);
  for (std::size_t i = 0; i < r.experts.size(); ++i) {
    const expert_weights& e = w.experts.at(static_cast<std::size_t>(r.experts[i]));
    // The router weight scales the down projection's input (the reference's order).
    const vec mid = clamped_swiglu(e.gate * x, e.up * x, limit) * r.weight[i];
    out += e.down * mid;
  }
  out += w.shared.down * clamped_swiglu(w.shared.gate * x, w.shared.up * x, limit);
  return out;
}

}  // namespace ordo::ref
