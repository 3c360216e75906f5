/// The host replay of router for P2, written from the definition and not from body.hpp: the keys
/// p_e + bias_e, a stable sort of all expert ids by key (descending; NaN last), the first n_used,
/// then the sum in that order, the floor and the division. The float scores come from the same
/// portable functions (they are part of the op's definition, and have their own tests).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "ordo/numeric/math.hpp"

namespace ordo::ops::router::replay {

struct routed {
  std::vector<std::int32_t> experts;
  std::vector<float> weights;
};

inline float p_of(float logit) { return numeric::sqrt_f32(numeric::softplus_f32(logit)); }

/// One row: top-k when `hash_row` is null, else the given ids in their order.
inline routed row(const float* logits, int n_expert, const float* bias, const std::int32_t* hash_row, int n_used,
                  float scale, float sum_floor) {
  routed r;
  if (hash_row) {
    r.experts.assign(hash_row, hash_row + n_used);
  } else {
    std::vector<float> key(static_cast<std::size_t>(n_expert));
    for (int e = 0; e < n_expert; ++e) key[std::size_t(e)] = bias ? p_of(logits[e]) + bias[e] : p_of(logits[e]);
    std::vector<std::int32_t> ids(static_cast<std::size_t>(n_expert));
    std::iota(ids.begin(), ids.end(), 0);
    std::stable_sort(ids.begin(), ids.end(), [&](std::int32_t a, std::int32_t b) {
      const float ka = key[std::size_t(a)], kb = key[std::size_t(b)];
      if (std::isnan(ka) || std::isnan(kb)) return !std::isnan(ka) && std::isnan(kb);
      return ka > kb;
    });
    r.experts.assign(ids.begin(), ids.begin() + n_used);
  }
  float sum = 0.0f;
  for (int k = 0; k < n_used; ++k) sum = k == 0 ? p_of(logits[r.experts[0]]) : sum + p_of(logits[r.experts[std::size_t(k)]]);
  sum = std::max(sum, sum_floor);
  for (int k = 0; k < n_used; ++k) r.weights.push_back(p_of(logits[r.experts[std::size_t(k)]]) / sum * scale);
  return r;
}

}  // namespace ordo::ops::router::replay
