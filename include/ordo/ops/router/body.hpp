/// router phases shared by the GPU kernel and the CPU executor (ORDO_HD). Selection: lane l of a
/// logical warp owns experts l, l+32, …; each round every lane proposes its best unchosen expert
/// and the warp keeps the best proposal (a total order, so any combine tree picks the same one);
/// n_used rounds give the experts in rank order. Weights: one lane sums p over the chosen experts
/// in output order, floors the sum and divides.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/math.hpp"
#include "ordo/ops/ranking.hpp"
#include "ordo/ops/router/problem.hpp"

namespace ordo::ops::router {

/// sqrt(softplus(logit)), from the portable math (softplus 1.18 ulp, sqrt correctly rounded).
ORDO_HD ORDO_FORCEINLINE float score(float logit) { return numeric::sqrt_f32(numeric::softplus_f32(logit)); }

/// A candidate of the top-k: its selection key and expert id. Empty: id −1. Ranked by
/// ops::ranks_before (ops/ranking.hpp).
struct candidate {
  float key;
  int id;
};

/// The selection key of an expert from its logit and bias: p_e + bias_e (p_e alone without a bias).
ORDO_HD ORDO_FORCEINLINE float key_of(const problem& p, float logit, float bias) {
  const float s = score(logit);
  return p.bias ? s + bias : s;
}

/// The selection key of expert e of row i.
ORDO_HD ORDO_FORCEINLINE float selection_key(const problem& p, int i, int e) {
  return key_of(p, p.logits[std::size_t(i) * p.logit_stride + std::size_t(e)], p.bias ? p.bias[e] : 0.0f);
}

/// Experts whose logits (and biases) one lane loads before it ranks any of them: the loads are
/// in flight together; the ranking then runs over them in ascending expert order.
inline constexpr int key_batch = 8;

/// Experts e0, e0 + 32, … (key_batch of them) of row i with their selection keys, in ascending
/// expert order (id −1 past n_expert). Their logits and biases are loaded before any key is
/// formed: the loads are in flight together.
ORDO_HD ORDO_FORCEINLINE void batch_keys(const problem& p, int i, int e0, candidate (&keys)[key_batch]) {
  const float* logits = p.logits + std::size_t(i) * p.logit_stride;
  float logit[key_batch], bias[key_batch];
#pragma unroll
  for (int u = 0; u < key_batch; ++u) {
    const int e = e0 + 32 * u;
    logit[u] = e < p.n_expert ? logits[e] : 0.0f;
    bias[u] = p.bias && e < p.n_expert ? p.bias[e] : 0.0f;
  }
#pragma unroll
  for (int u = 0; u < key_batch; ++u) {
    const int e = e0 + 32 * u;
    keys[u] = e < p.n_expert ? candidate{key_of(p, logit[u], bias[u]), e} : candidate{0.0f, -1};
  }
}

/// Whether a lane's experts fit one batch (n_expert <= 32 · key_batch: DS4's 256), so their keys
/// (batch_keys at e0 = lane) can be formed once for every round instead of once per round.
ORDO_HD ORDO_FORCEINLINE bool keys_fit(const problem& p) { return p.n_expert <= 32 * key_batch; }

/// The best of a batch's candidates that is not among chosen[0..n_chosen), in ascending order.
ORDO_HD ORDO_FORCEINLINE candidate lane_best_of(const candidate (&keys)[key_batch], const int* chosen, int n_chosen) {
  candidate best{0.0f, -1};
#pragma unroll
  for (int u = 0; u < key_batch; ++u) {
    if (keys[u].id < 0) continue;
    bool taken = false;
    for (int c = 0; c < n_chosen; ++c) taken = taken || chosen[c] == keys[u].id;
    if (!taken && ranks_before(keys[u], best)) best = keys[u];
  }
  return best;
}

/// Lane l's best expert among its own (l, l+32, …) that is not among chosen[0..n_chosen): the
/// best of its batches' bests (ranks_before is a strict total order, so the grouping cannot matter).
ORDO_HD ORDO_FORCEINLINE candidate lane_best(const problem& p, int i, int lane, const int* chosen, int n_chosen) {
  candidate best{0.0f, -1};
#pragma unroll 1
  for (int e0 = lane; e0 < p.n_expert; e0 += 32 * key_batch) {
    candidate keys[key_batch];
    batch_keys(p, i, e0, keys);
    const candidate c = lane_best_of(keys, chosen, n_chosen);
    if (ranks_before(c, best)) best = c;
  }
  return best;
}

/// Writes row i's weights for its chosen experts (already in p.experts, output order). The ids
/// and then their logits are read before anything is written (a store to the weights could
/// alias them for all the compiler knows), so the reads are in flight together.
ORDO_HD ORDO_FORCEINLINE void write_weights(const problem& p, int i) {
  const std::int32_t* ex = p.experts + std::size_t(i) * p.out_stride;
  const float* logits = p.logits + std::size_t(i) * p.logit_stride;
  int id[max_used];
  float s[max_used];
  for (int k = 0; k < max_used; ++k) id[k] = k < p.n_used ? ex[k] : 0;
  for (int k = 0; k < max_used; ++k) s[k] = k < p.n_used ? score(logits[id[k]]) : 0.0f;
  float sum = s[0];
  for (int k = 1; k < p.n_used; ++k) sum = sum + s[k];
  sum = sum < p.sum_floor ? p.sum_floor : sum;
  float* w = p.weights + std::size_t(i) * p.out_stride;
  for (int k = 0; k < p.n_used; ++k) w[k] = s[k] / sum * p.scale;
}

/// Hash selection: the token's row of tid2eid, in the table's order.
ORDO_HD ORDO_FORCEINLINE void write_hash_experts(const problem& p, int i) {
  const std::int32_t* row = p.tid2eid + std::size_t(p.tokens[i]) * std::size_t(p.n_used);
  for (int k = 0; k < p.n_used; ++k) p.experts[std::size_t(i) * p.out_stride + std::size_t(k)] = row[k];
}

}  // namespace ordo::ops::router
