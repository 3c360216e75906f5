/// The host replay of rmsnorm for P2, written from the Order's definition and not from the
/// kernel's body: which lane owns element e (ls32: e mod 32; lb32: e / ceil(n/32)), each lane's
/// fmaf sequence in ascending e, the xor butterfly 16, 8, 4, 2, 1, then the scale. It shares no
/// code with body.hpp, so a mistake in the body (or in Order::range) shows up as a bit mismatch.
#pragma once
#include <math.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "ordo/numeric/math.hpp"
#include "ordo/ops/rmsnorm/problem.hpp"
#include "ordo/quant/q8_32.hpp"

namespace ordo::ops::rmsnorm::replay {

/// The lane that owns element e of an n-element reduction under the order named `order`.
inline int owner(std::string_view order, int e, int n) {
  if (order == "ls32") return e % 32;
  if (order == "lb32") return e / ((n + 31) / 32);
  throw std::invalid_argument("rmsnorm replay: no replay for order " + std::string(order));
}

/// Normalizes one head x[0..n) into y (f32), as the named order prescribes.
inline void head(std::string_view order, const float* x, int n, const float* weight, float eps, float* y) {
  std::array<float, 32> partial{};
  for (int e = 0; e < n; ++e) {
    float& acc = partial[std::size_t(owner(order, e, n))];
    acc = fmaf(x[e], x[e], acc);
  }
  for (int offset = 16; offset >= 1; offset /= 2) {
    std::array<float, 32> next{};
    for (int l = 0; l < 32; ++l) next[std::size_t(l)] = partial[std::size_t(l)] + partial[std::size_t(l ^ offset)];
    partial = next;
  }
  const float inv = numeric::rsqrt_f32(partial[0] / float(n) + eps);
  for (int e = 0; e < n; ++e) y[e] = weight ? (x[e] * inv) * weight[e] : x[e] * inv;
}

/// One row of n_heads heads: the f32 output and, when q8 is wanted, the q8_32 blocks of it.
struct row_result {
  std::vector<float> y;                       // [n_heads * head_dim]
  std::vector<quant::q8_32::block> q8;        // [n_heads * head_dim / 32] when asked for
};

inline row_result row(std::string_view order, const float* x, int n_heads, int head_dim, const float* weight, float eps,
                      bool q8) {
  row_result r;
  r.y.resize(std::size_t(n_heads) * std::size_t(head_dim));
  for (int h = 0; h < n_heads; ++h)
    head(order, x + std::size_t(h) * head_dim, head_dim, weight, eps, r.y.data() + std::size_t(h) * head_dim);
  if (q8) {
    r.q8.resize(r.y.size() / 32);
    for (std::size_t b = 0; b < r.q8.size(); ++b) quant::q8_32::quantize(r.y.data() + 32 * b, r.q8[b]);
  }
  return r;
}

}  // namespace ordo::ops::rmsnorm::replay
