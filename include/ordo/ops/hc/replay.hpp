/// The host replay of hc for P2, written from ds4-model.md §3.3 and the Order's definition, not
/// from the kernel's body: the normalized flat state is rmsnorm's own replay (an independent
/// implementation of the plain whole-row norm); each mix gives element e to lane owner(e), adds
/// fn·y in ascending e with fmaf, then the xor butterfly 16, 8, 4, 2, 1; the sigmoids, the
/// Sinkhorn (as a 4×4 array, columns then rows) and the sums are plain loops over a = 0..3.
/// It shares no code with body.hpp, so a mistake there (or in Order::range) is a bit mismatch.
#pragma once
#include <math.h>

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ordo/numeric/conversions.hpp"
#include "ordo/numeric/math.hpp"
#include "ordo/ops/hc/problem.hpp"
#include "ordo/ops/rmsnorm/replay.hpp"

namespace ordo::ops::hc::replay {

/// What one row of pre or head makes.
struct collapse_result {
  std::vector<float> x;               // [n_embd]
  std::array<float, n_pre_mix> split{};  // pre only: pre, post, comb[a + 4b]
};

/// mix_k of a normalized flat row y under the named order.
inline float mix(std::string_view order, const std::uint16_t* fn_row, const std::vector<float>& y) {
  const int n = int(y.size());
  std::array<float, 32> partial{};
  for (int e = 0; e < n; ++e) {
    float& acc = partial[std::size_t(rmsnorm::replay::owner(order, e, n))];
    acc = fmaf(numeric::f16_to_f32(fn_row[e]), y[std::size_t(e)], acc);
  }
  for (int offset = 16; offset >= 1; offset /= 2) {
    std::array<float, 32> next{};
    for (int l = 0; l < 32; ++l) next[std::size_t(l)] = partial[std::size_t(l)] + partial[std::size_t(l ^ offset)];
    partial = next;
  }
  return partial[0];
}

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

/// One row of pre (`head` false: 24 mixes, split + x_sub) or of the output head (4 mixes, x).
inline collapse_result collapse_row(std::string_view order, bool head, const float* h, int n_embd,
                                    const std::uint16_t* fn, const float* scale, const float* base, float rms_eps,
                                    float hc_eps) {
  const int n = 4 * n_embd;
  const std::vector<float> y = rmsnorm::replay::row(order, h, 1, n, nullptr, rms_eps, false).y;
  const int mixes = head ? n_head_mix : n_pre_mix;
  std::array<float, n_pre_mix> m{};
  for (int k = 0; k < mixes; ++k) m[std::size_t(k)] = mix(order, fn + std::size_t(k) * std::size_t(n), y);
  collapse_result r;
  float w[4];
  for (int a = 0; a < 4; ++a) w[a] = gate(m[std::size_t(a)], scale[0], base[a]) + hc_eps;
  if (!head) {
    std::array<std::array<float, 4>, 4> L{};
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        L[std::size_t(a)][std::size_t(b)] = m[std::size_t(8 + a + 4 * b)] * scale[2] + base[8 + a + 4 * b];
    const auto M = sinkhorn(L, sinkhorn_iters, hc_eps);
    for (int a = 0; a < 4; ++a) {
      r.split[std::size_t(a)] = w[a];
      r.split[std::size_t(4 + a)] = 2.0f * gate(m[std::size_t(4 + a)], scale[1], base[4 + a]);
      for (int b = 0; b < 4; ++b) r.split[std::size_t(8 + a + 4 * b)] = M[std::size_t(a)][std::size_t(b)];
    }
  }
  r.x = collapse(h, n_embd, w);
  return r;
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
