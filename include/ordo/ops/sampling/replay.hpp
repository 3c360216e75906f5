/// The host replays of sampling for P2, written from the definitions in problem.hpp and not from
/// body.hpp: greedy is one pass in id order keeping the first largest logit, NaN never chosen over a
/// number (an all-NaN row gives id 0); sample sorts the tokens (a stable sort by logit, so ties keep
/// the lower id first), takes top-k as a prefix, finds the top-p prefix by a binary search over its
/// length, and draws by the chunked sums the definition fixes (chunks of ceil(n/256) ids).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "ordo/numeric/math.hpp"
#include "ordo/ops/sampling/philox.hpp"
#include "ordo/ops/sampling/problem.hpp"

namespace ordo::ops::sampling::replay {

inline std::int32_t argmax(const float* z, int n) {
  int best = 0;
  for (int v = 1; v < n; ++v)
    if (!std::isnan(z[v]) && (std::isnan(z[best]) || z[v] > z[best])) best = v;
  return std::int32_t(best);
}

/// The definition's float sum of w[0..n): 256 chunks of ceil(n/256) ids, each summed in id order
/// from 0, the chunk sums added left to right from 0.
inline float chunked_sum(const std::vector<float>& w) {
  const std::size_t n = w.size(), len = (n + 255) / 256;
  float total = 0.0f;
  for (std::size_t c = 0; c < 256; ++c) {
    float s = 0.0f;
    for (std::size_t j = c * len; j < std::min(n, (c + 1) * len); ++j) s += w[j];
    total += s;
  }
  return total;
}

/// The tokens of a row with a number logit, best first: larger logit, then lower id.
inline std::vector<int> ranked_tokens(const float* z, int n) {
  std::vector<int> ids;
  for (int v = 0; v < n; ++v)
    if (!std::isnan(z[v])) ids.push_back(v);
  std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) { return z[a] > z[b]; });
  return ids;
}

/// The kept tokens' weights (0 for a token filtered out), before the draw.
inline std::vector<float> kept_weights(const float* z, int n, const settings& s, float z_max) {
  const auto ranked = ranked_tokens(z, n);
  std::size_t keep = ranked.size();
  if (s.top_k > 0) keep = std::min(keep, std::size_t(s.top_k));
  std::vector<float> w(std::size_t(n), 0.0f);
  const auto weight = [&](int v) { return std::isinf(z[v]) ? 0.0f : numeric::exp_f32((z[v] - z_max) / s.temperature); };
  const auto prefix_weights = [&](std::size_t r) {
    std::vector<float> p(std::size_t(n), 0.0f);
    for (std::size_t i = 0; i < r; ++i) p[std::size_t(ranked[i])] = weight(ranked[i]);
    return p;
  };
  if (s.top_p < 1.0f) {
    const float target = s.top_p * chunked_sum(prefix_weights(keep));
    std::size_t lo = 0, hi = keep;  // the shortest prefix reaching the target lies in (lo, hi]
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (chunked_sum(prefix_weights(mid)) >= target) hi = mid;
      else lo = mid;
    }
    keep = hi;
  }
  w = prefix_weights(keep);
  for (auto& x : w)
    if (!(x >= s.min_p)) x = 0.0f;
  return w;
}

inline std::int32_t sample(const float* z, int n, const settings& s, std::uint64_t position) {
  const int best = argmax(z, n);
  if (!(s.temperature > 0.0f) || !std::isfinite(z[best])) return best;
  const auto w = kept_weights(z, n, s, z[best]);
  const float target = uniform_of(s.seed, position) * chunked_sum(w);
  const std::size_t len = (std::size_t(n) + 255) / 256;
  float before = 0.0f;  // the sum of the chunks left of chunk c
  for (std::size_t c = 0; c < 256; ++c) {
    float local = 0.0f;
    for (std::size_t j = c * len; j < std::min(std::size_t(n), (c + 1) * len); ++j) {
      local += w[j];
      if (before + local > target) return std::int32_t(j);
    }
    before += local;
  }
  return best;
}

}  // namespace ordo::ops::sampling::replay
