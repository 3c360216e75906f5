/// The host replay of hc for P2, written from ds4-model.md §3.3, not from the kernel's body: the
/// sigmoids, the Sinkhorn (as a 4×4 array, softmax columns, then rows, then column/row pairs) and
/// the sums are plain loops over a, b = 0..3. It shares no code with body.hpp, so a mistake there
/// shows up as a bit mismatch.
#pragma once
#include <math.h>

#include <array>
#include <vector>

#include "ordo/numeric/math.hpp"
#include "ordo/ops/hc/problem.hpp"

namespace ordo::ops::hc::replay {

/// σ(mix · scale + base), two roundings before the sigmoid.
inline float gate(float mix, float scale, float base) { return numeric::sigmoid_f32(mix * scale + base); }

/// The Sinkhorn of §3.3 on L[a][b], `iters` iterations.
inline std::array<std::array<float, 4>, 4> sinkhorn(const std::array<std::array<float, 4>, 4>& L, int iters, float eps) {
  std::array<std::array<float, 4>, 4> M{};
  for (int b = 0; b < 4; ++b) {
    float mx = L[0][b];
    for (int a = 1; a < 4; ++a)
      if (L[std::size_t(a)][std::size_t(b)] > mx) mx = L[std::size_t(a)][std::size_t(b)];
    float sum = 0.0f;
    for (int a = 0; a < 4; ++a) sum = a == 0 ? numeric::exp_f32(L[0][b] - mx) : sum + numeric::exp_f32(L[std::size_t(a)][std::size_t(b)] - mx);
    for (int a = 0; a < 4; ++a) M[std::size_t(a)][std::size_t(b)] = numeric::exp_f32(L[std::size_t(a)][std::size_t(b)] - mx) / sum + eps;
  }
  const auto rows = [&] {
    for (auto& r : M) {
      const float d = (((r[0] + r[1]) + r[2]) + r[3]) + eps;
      for (auto& v : r) v /= d;
    }
  };
  const auto cols = [&] {
    for (std::size_t b = 0; b < 4; ++b) {
      const float d = (((M[0][b] + M[1][b]) + M[2][b]) + M[3][b]) + eps;
      for (auto& r : M) r[b] /= d;
    }
  };
  rows();
  for (int i = 1; i < iters; ++i) cols(), rows();
  return M;
}

/// x_j = Σ_a w[a] · h[a·n + j], a = 0..3 with fmaf from +0.
inline std::vector<float> collapse(const float* h, int n_embd, const float* w) {
  std::vector<float> x(static_cast<std::size_t>(n_embd));
  for (int j = 0; j < n_embd; ++j) {
    float acc = 0.0f;
    for (int a = 0; a < 4; ++a) acc = fmaf(w[a], h[std::size_t(a) * std::size_t(n_embd) + std::size_t(j)], acc);
    x[std::size_t(j)] = acc;
  }
  return x;
}

/// The split of one row from its 24 mixes: pre, post, comb[a + 4b] = M[a][b].
inline std::array<float, n_split> split_row(const float* mix, const float* scale, const float* base, float hc_eps) {
  std::array<std::array<float, 4>, 4> L{};
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) L[std::size_t(a)][std::size_t(b)] = mix[8 + a + 4 * b] * scale[2] + base[8 + a + 4 * b];
  const auto M = sinkhorn(L, sinkhorn_iters, hc_eps);
  std::array<float, n_split> r{};
  for (int a = 0; a < 4; ++a) {
    r[std::size_t(a)] = gate(mix[a], scale[0], base[a]) + hc_eps;
    r[std::size_t(4 + a)] = 2.0f * gate(mix[4 + a], scale[1], base[4 + a]);
    for (int b = 0; b < 4; ++b) r[std::size_t(8 + a + 4 * b)] = M[std::size_t(a)][std::size_t(b)];
  }
  return r;
}

/// The output head of one row: weights from its 4 mixes, then the collapse.
inline std::vector<float> head_row(const float* mix, const float* scale, const float* base, float hc_eps, const float* h,
                                   int n_embd) {
  float w[4];
  for (int a = 0; a < 4; ++a) w[a] = gate(mix[a], scale[0], base[a]) + hc_eps;
  return collapse(h, n_embd, w);
}

/// One row of post: H_new[a][j] = (Σ_b M[a][b] · H_old[b][j]) + post[a] · f[j], fmaf throughout.
inline std::vector<float> post_row(const float* h, int n_embd, const float* split, const float* f) {
  const std::size_t n = std::size_t(n_embd);
  std::vector<float> out(4 * n);
  for (std::size_t a = 0; a < 4; ++a)
    for (std::size_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (std::size_t b = 0; b < 4; ++b) acc = fmaf(split[8 + a + 4 * b], h[b * n + j], acc);
      out[a * n + j] = fmaf(split[4 + a], f[j], acc);
    }
  return out;
}

}  // namespace ordo::ops::hc::replay
