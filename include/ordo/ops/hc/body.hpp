/// hc phases shared by the GPU kernels and the CPU executor (ORDO_HD), all in fixed sequential
/// orders (there is nothing to split among lanes):
///   split: per row, the sigmoids and the 4×4 Sinkhorn from the row's 24 mixes;
///   weighted_sum / collapse: per element j, x_j = Σ_a w[a] · H[a][j] (fmaf from +0, a = 0..3);
///   post: per element j, H_new[a][j] = Σ_b M[a][b] · H[b][j] (fmaf from +0, b = 0..3) + post[a] · f[j].
/// Every element and every row is computed alone, so how a kernel spreads them over threads is
/// free; the per-row statements of an R-row pass are the one-row statements (DESIGN §5).
#pragma once
#include <math.h>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/math.hpp"
#include "ordo/ops/hc/problem.hpp"

namespace ordo::ops::hc {

ORDO_HD ORDO_FORCEINLINE const float* state_of(const problem& p, int i) { return p.h + std::size_t(i) * p.h_stride; }
ORDO_HD ORDO_FORCEINLINE const float* mix_of(const problem& p, int i) { return p.mix + std::size_t(i) * p.mix_stride; }
ORDO_HD ORDO_FORCEINLINE float* split_of(const problem& p, int i) { return p.split + std::size_t(i) * p.split_stride; }

/// mix · scale + base: two roundings, as the reference writes it.
ORDO_HD ORDO_FORCEINLINE float affine(float mix, float scale, float base) {
  const float z = mix * scale;
  return z + base;
}

/// Σ of four terms left to right, ((t0 + t1) + t2) + t3.
ORDO_HD ORDO_FORCEINLINE float sum4(float t0, float t1, float t2, float t3) { return ((t0 + t1) + t2) + t3; }

/// The 24 split values of a row from its 24 mixes: pre[a] = σ(mix[a]·s0 + base[a]) + eps,
/// post[a] = 2·σ(mix[4+a]·s1 + base[4+a]), and the Sinkhorn of L[a][b] = mix[8+a+4b]·s2 +
/// base[8+a+4b]: per column b, softmax over a (max first, e^(L − max), sum a = 0..3) + eps; one
/// row normalization; then Iters − 1 pairs of column and row normalizations, each dividing by
/// (Σ + eps). Iters is DS4's 20; the mutation check instantiates 19.
template <int Iters = sinkhorn_iters>
ORDO_HD ORDO_FORCEINLINE void split_from_mix(const float* mix, const float* scale, const float* base, float eps,
                                             float* split) {
  for (int a = 0; a < n_streams; ++a) {
    split[a] = numeric::sigmoid_f32(affine(mix[a], scale[0], base[a])) + eps;
    split[4 + a] = 2.0f * numeric::sigmoid_f32(affine(mix[4 + a], scale[1], base[4 + a]));
  }
  float m[16];  // m[a + 4b] = M[a][b]
  for (int b = 0; b < n_streams; ++b) {
    float l[4];
    for (int a = 0; a < n_streams; ++a) l[a] = affine(mix[8 + a + 4 * b], scale[2], base[8 + a + 4 * b]);
    float mx = l[0];
    for (int a = 1; a < n_streams; ++a) mx = l[a] > mx ? l[a] : mx;
    float e[4];
    for (int a = 0; a < n_streams; ++a) e[a] = numeric::exp_f32(l[a] - mx);
    const float sum = sum4(e[0], e[1], e[2], e[3]);
    for (int a = 0; a < n_streams; ++a) m[a + 4 * b] = e[a] / sum + eps;
  }
  auto normalize_rows = [&] {
    for (int a = 0; a < n_streams; ++a) {
      const float d = sum4(m[a], m[a + 4], m[a + 8], m[a + 12]) + eps;
      for (int b = 0; b < n_streams; ++b) m[a + 4 * b] = m[a + 4 * b] / d;
    }
  };
  normalize_rows();
#pragma unroll 1
  for (int it = 1; it < Iters; ++it) {
    for (int b = 0; b < n_streams; ++b) {
      const float d = sum4(m[4 * b], m[4 * b + 1], m[4 * b + 2], m[4 * b + 3]) + eps;
      for (int a = 0; a < n_streams; ++a) m[a + 4 * b] = m[a + 4 * b] / d;
    }
    normalize_rows();
  }
  for (int c = 0; c < 16; ++c) split[8 + c] = m[c];
}

/// The head's stream weights from its 4 mixes: σ(mix[a]·s0 + base[a]) + eps.
ORDO_HD ORDO_FORCEINLINE void head_weights(const float* mix, const float* scale, const float* base, float eps,
                                           float* w) {
  for (int a = 0; a < n_streams; ++a) w[a] = numeric::sigmoid_f32(affine(mix[a], scale[0], base[a])) + eps;
}

/// Row i's split, from its mixes, into its split row.
template <int Iters = sinkhorn_iters>
ORDO_HD ORDO_FORCEINLINE void write_split(const problem& p, int i) {
  split_from_mix<Iters>(mix_of(p, i), p.scale, p.base, p.hc_eps, split_of(p, i));
}

/// x[i][j] = Σ_a w[a] · H[a][j] (fmaf from +0, a = 0..3) for j = first, first + step, … (the
/// element split is free: each element is computed alone).
ORDO_HD ORDO_FORCEINLINE void write_collapse(const problem& p, int i, const float* w, int first, int step) {
  const float* h = state_of(p, i);
  float* x = p.x + std::size_t(i) * p.x_stride;
  const std::size_t n = std::size_t(p.n_embd);
#pragma unroll 1
  for (int j = first; j < p.n_embd; j += step) {
    float acc = 0.0f;
    for (int a = 0; a < n_streams; ++a) acc = fmaf(w[a], h[std::size_t(a) * n + std::size_t(j)], acc);
    x[j] = acc;
  }
}

/// H_new[a][j] = Σ_b M[a][b] · H_old[b][j] (fmaf from +0, b = 0..3), then + post[a] · f[j] (one
/// more fmaf), for j = first, first + step, …; the four new values are formed before any is
/// written, so h_new may alias h.
ORDO_HD ORDO_FORCEINLINE void write_post(const problem& p, int i, int first, int step) {
  const float* h = state_of(p, i);
  const float* s = split_of(p, i);
  const float* f = p.f + std::size_t(i) * p.f_stride;
  float* out = p.h_new + std::size_t(i) * p.h_new_stride;
  const std::size_t n = std::size_t(p.n_embd);
#pragma unroll 1
  for (int j = first; j < p.n_embd; j += step) {
    float v[4];
    for (int a = 0; a < n_streams; ++a) {
      float acc = 0.0f;
      for (int b = 0; b < n_streams; ++b) acc = fmaf(s[8 + a + 4 * b], h[std::size_t(b) * n + std::size_t(j)], acc);
      v[a] = fmaf(s[4 + a], f[j], acc);
    }
    for (int a = 0; a < n_streams; ++a) out[std::size_t(a) * n + std::size_t(j)] = v[a];
  }
}

}  // namespace ordo::ops::hc
