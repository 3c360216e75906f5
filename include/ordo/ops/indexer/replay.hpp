/// The host replay of indexer for P2, written from the definition (problem.hpp) and not from
/// body.hpp: the float Hadamard butterfly and × rsqrt_f32(n); the FP4 scale and the nearest E2M1
/// value from the double-precision reference's rounding helpers (exact on float inputs: amax/6
/// and |a − grid| carry no rounding that could move a decision); the dots by attention's ls32
/// replay; the head sum by fmaf in ascending h; the top-k by a stable sort of every id (score
/// descending, NaN last), the first k, ascending. A test-side header (it needs include/ordo/ref).
#pragma once
#include <math.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "ordo/numeric/math.hpp"
#include "ordo/ops/attention/replay.hpp"
#include "ordo/ref/rounding.hpp"

namespace ordo::ops::indexer::replay {

/// fp4(hadamard(v)) of one head of width n (a power of two).
inline std::vector<float> hadamard_fp4(const float* v, int n) {
  std::vector<float> x(v, v + n);
  for (int h = 1; h < n; h *= 2)
    for (int i = 0; i < n; i += 2 * h)
      for (int j = i; j < i + h; ++j) {
        const float a = x[std::size_t(j)], b = x[std::size_t(j + h)];
        x[std::size_t(j)] = a + b;
        x[std::size_t(j + h)] = a - b;
      }
  for (auto& e : x) e = e * numeric::rsqrt_f32(float(n));
  const int block = std::min(n, 32);
  for (int b0 = 0; b0 < n; b0 += block) {
    double amax = double(7.052966104933725e-38f);
    for (int d = b0; d < b0 + block; ++d) amax = std::max(amax, std::fabs(double(x[std::size_t(d)])));
    const double scale = std::ldexp(1.0, ref::ceil_log2(amax / 6.0));
    for (int d = b0; d < b0 + block; ++d) x[std::size_t(d)] = float(ref::round_to_e2m1(double(x[std::size_t(d)]) / scale) * scale);
  }
  return x;
}

/// Indices of the k best scores (ties to the lowest id, NaN last), ascending.
inline std::vector<std::int32_t> top_k(const float* s, int n, int k) {
  std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  std::stable_sort(ids.begin(), ids.end(), [&](std::int32_t a, std::int32_t b) {
    const float x = s[a], y = s[b];
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    return x > y;
  });
  ids.resize(std::min(ids.size(), std::size_t(k)));
  std::sort(ids.begin(), ids.end());
  return ids;
}

struct row_result {
  std::vector<float> scores;          // [n_visible]
  std::vector<std::int32_t> selected; // ascending
};

/// One row: q [n_heads × head_dim], w [n_heads], keys [n_visible][key_stride].
inline row_result row(const float* q, const float* w, float weight_scale, const float* keys, std::size_t key_stride,
                      int n_visible, int n_heads, int head_dim, int k) {
  std::vector<std::vector<float>> qh;
  for (int h = 0; h < n_heads; ++h) qh.push_back(hadamard_fp4(q + std::size_t(h) * std::size_t(head_dim), head_dim));
  row_result r;
  for (int c = 0; c < n_visible; ++c) {
    float s = 0.0f;
    for (int h = 0; h < n_heads; ++h) {
      const float d = attention::replay::logit(qh[std::size_t(h)].data(), keys + std::size_t(c) * key_stride, head_dim, 1.0f);
      s = fmaf(d > 0.0f ? d : 0.0f, w[h] * weight_scale, s);
    }
    r.scores.push_back(s);
  }
  r.selected = top_k(r.scores.data(), n_visible, k);
  return r;
}

}  // namespace ordo::ops::indexer::replay
