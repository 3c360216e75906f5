/// The host replay of attention for P2, written from the Order's definition (attention.hpp) and not
/// from body.hpp: z_j from 32 partial dots (dim d belongs to partial d mod 32, fmaf in ascending d)
/// and the butterfly 16, 8, 4, 2, 1, then ×τ; all logits first; m as the max of s_h and each
/// chunk's max; per chunk of `chunk` list entries den_c and acc_c in list order; then the chunk-
/// order combine and the division. It shares no code with the body, so a mistake there (or in the
/// chunking) shows up as a bit mismatch.
#pragma once
#include <math.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "ordo/numeric/math.hpp"

namespace ordo::ops::attention::replay {

/// z = (q·row)·τ under ls32.
inline float logit(const float* q, const float* row, int n, float scale) {
  std::array<float, 32> partial{};
  for (int d = 0; d < n; ++d) partial[std::size_t(d % 32)] = fmaf(q[d], row[d], partial[std::size_t(d % 32)]);
  for (int offset = 16; offset >= 1; offset /= 2) {
    std::array<float, 32> next{};
    for (int l = 0; l < 32; ++l) next[std::size_t(l)] = partial[std::size_t(l)] + partial[std::size_t(l ^ offset)];
    partial = next;
  }
  return partial[0] * scale;
}

/// One head: q[n], the rows of its list in list order (nullopt: invisible), its sink; out[n].
inline std::vector<float> head(const float* q, const std::vector<const float*>& list, int n, float sink, float scale,
                               int chunk) {
  const std::size_t count = list.size();
  std::vector<std::optional<float>> z(count);
  for (std::size_t j = 0; j < count; ++j)
    if (list[j]) z[j] = logit(q, list[j], n, scale);
  float m = sink;
  for (std::size_t c0 = 0; c0 < count; c0 += std::size_t(chunk)) {
    float chunk_max = -std::numeric_limits<float>::infinity();
    for (std::size_t j = c0; j < count && j < c0 + std::size_t(chunk); ++j)
      if (z[j] && *z[j] > chunk_max) chunk_max = *z[j];
    if (chunk_max > m) m = chunk_max;
  }
  float den = numeric::exp_f32(sink - m);
  std::vector<float> acc(std::size_t(n), 0.0f);
  for (std::size_t c0 = 0; c0 < count; c0 += std::size_t(chunk)) {
    float den_c = 0.0f;
    std::vector<float> acc_c(std::size_t(n), 0.0f);
    for (std::size_t j = c0; j < count && j < c0 + std::size_t(chunk); ++j) {
      if (!z[j]) continue;
      const float e = numeric::exp_f32(*z[j] - m);
      den_c = den_c + e;
      for (int d = 0; d < n; ++d) acc_c[std::size_t(d)] = fmaf(e, list[j][d], acc_c[std::size_t(d)]);
    }
    den = den + den_c;
    for (int d = 0; d < n; ++d) acc[std::size_t(d)] = acc[std::size_t(d)] + acc_c[std::size_t(d)];
  }
  for (auto& a : acc) a = a / den;
  return acc;
}

/// One query row of n_heads heads: the list's entries index `kv` (rows of kv_stride; < 0 invisible).
inline std::vector<float> row(const float* q, int n_heads, int head_dim, const float* kv, std::size_t kv_stride,
                              const std::vector<std::int32_t>& entries, const float* sinks, float scale, int chunk) {
  std::vector<const float*> list;
  for (std::int32_t e : entries) list.push_back(e < 0 ? nullptr : kv + std::size_t(e) * kv_stride);
  std::vector<float> out;
  for (int h = 0; h < n_heads; ++h) {
    const auto y = head(q + std::size_t(h) * std::size_t(head_dim), list, head_dim, sinks[h], scale, chunk);
    out.insert(out.end(), y.begin(), y.end());
  }
  return out;
}

}  // namespace ordo::ops::attention::replay
