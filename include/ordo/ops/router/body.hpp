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

/// The selection key of expert e of row i: p_e + bias_e (p_e alone without a bias).
ORDO_HD ORDO_FORCEINLINE float selection_key(const problem& p, int i, int e) {
  const float s = score(p.logits[std::size_t(i) * p.logit_stride + std::size_t(e)]);
  return p.bias ? s + p.bias[e] : s;
}

/// Lane l's best expert among its own (l, l+32, …) that is not among chosen[0..n_chosen).
ORDO_HD ORDO_FORCEINLINE candidate lane_best(const problem& p, int i, int lane, const int* chosen, int n_chosen) {
  candidate best{0.0f, -1};
#pragma unroll 1
  for (int e = lane; e < p.n_expert; e += 32) {
    bool taken = false;
    for (int c = 0; c < n_chosen; ++c) taken = taken || chosen[c] == e;
    const candidate mine{selection_key(p, i, e), e};
    if (!taken && ranks_before(mine, best)) best = mine;
  }
  return best;
}

/// Writes row i's weights for its chosen experts (already in p.experts, output order).
ORDO_HD ORDO_FORCEINLINE void write_weights(const problem& p, int i) {
  const std::int32_t* ex = p.experts + std::size_t(i) * p.out_stride;
  const float* logits = p.logits + std::size_t(i) * p.logit_stride;
  float sum = score(logits[ex[0]]);
  for (int k = 1; k < p.n_used; ++k) sum = sum + score(logits[ex[k]]);
  sum = sum < p.sum_floor ? p.sum_floor : sum;
  float* w = p.weights + std::size_t(i) * p.out_stride;
  for (int k = 0; k < p.n_used; ++k) w[k] = score(logits[ex[k]]) / sum * p.scale;
}

/// Hash selection: the token's row of tid2eid, in the table's order.
ORDO_HD ORDO_FORCEINLINE void write_hash_experts(const problem& p, int i) {
  const std::int32_t* row = p.tid2eid + std::size_t(p.tokens[i]) * std::size_t(p.n_used);
  for (int k = 0; k < p.n_used; ++k) p.experts[std::size_t(i) * p.out_stride + std::size_t(k)] = row[k];
}

}  // namespace ordo::ops::router
