/// Manifold-constrained hyper-connections (mHC) of the reference: the residual is a state of
/// hc_count streams; before each sublayer a learned mixer collapses it to the sublayer input and
/// produces post weights and a Sinkhorn-normalized stream-mixing matrix; after the sublayer the
/// state is recombined (ds4-model.md §3.3).
#pragma once
#include <cmath>

#include "ordo/ref/basic.hpp"
#include "ordo/ref/config.hpp"
#include "ordo/ref/weights.hpp"

namespace ordo::ref {

/// [hc_count, n_embd], stream-major: row a is stream a.
using hc_state = mat;

struct hc_split {
  vec x_sub;  // [n_embd] the sublayer input
  vec post;   // [hc_count]
  mat comb;   // [hc_count, hc_count]: comb(a, b) weights old stream b into new stream a
};

inline vec hc_flat(const hc_state& h) {
  return Eigen::Map<const vec>(h.data(), h.size());  // row-major storage: stream-major flat
}

/// Sinkhorn on logits L(a, b): softmax over a for each column b, + eps; then one row
/// normalization, then (iters - 1) pairs of column and row normalizations, eps in every
/// denominator.
inline mat sinkhorn(const mat& logits, int iters, double eps) {
  const int n = static_cast<int>(logits.rows());
  mat m(n, n);
  for (int b = 0; b < n; ++b) {
    const double mx = logits.col(b).maxCoeff();
    double sum = 0;
    for (int a = 0; a < n; ++a) sum += std::exp(logits(a, b) - mx);
    for (int a = 0; a < n; ++a) m(a, b) = std::exp(logits(a, b) - mx) / sum + eps;
  }
  auto norm_rows = [&] {
    for (int a = 0; a < n; ++a) m.row(a) /= (m.row(a).sum() + eps);
  };
  auto norm_cols = [&] {
    for (int b = 0; b < n; ++b) m.col(b) /= (m.col(b).sum() + eps);
  };
  norm_rows();
  for (int i = 1; i < iters; ++i) {
    norm_cols();
    norm_rows();
  }
  return m;
}

inline hc_split hc_pre(const hc_state& h, const hc_weights& w, const config& c) {
  const int n = c.hc_count;
  const vec mix = w.fn * rms_norm_plain(hc_flat(h), c.rms_eps);  // [hc_mix]
  hc_split s;
  vec pre(n);
  s.post.resize(n);
  for (int a = 0; a < n; ++a) {
    pre[a] = sigmoid(mix[a] * w.scale[0] + w.base[a]) + c.hc_eps;
    s.post[a] = 2.0 * sigmoid(mix[n + a] * w.scale[1] + w.base[n + a]);
  }
  mat logits(n, n);
  for (int b = 0; b < n; ++b)
    for (int a = 0; a < n; ++a) logits(a, b) = mix[2 * n + a + n * b] * w.scale[2] + w.base[2 * n + a + n * b];
#ifdef ORDO_MUTANT_SINKHORN_ITERS_MINUS_ONE  // mutation-check test targets only: 20 -> 19 iterations
  s.comb = sinkhorn(logits, c.hc_sinkhorn_iters - 1, c.hc_eps);
#else
  s.comb = sinkhorn(logits, c.hc_sinkhorn_iters, c.hc_eps);
#endif
  s.x_sub = h.transpose() * pre;  // sum_a pre[a] * H[a]
  return s;
}

/// H_new[a] = post[a] * f + sum_b comb(a, b) * H_old[b].
inline hc_state hc_post(const vec& f, const hc_state& h_old, const hc_split& s) {
  hc_state out = s.comb * h_old;
  for (int a = 0; a < out.rows(); ++a) out.row(a) += s.post[a] * f.transpose();
  return out;
}

/// Output collapse: weights sigmoid(mix * scale + base) + eps, no Sinkhorn, no post.
inline vec hc_collapse(const hc_state& h, const hc_head_weights& w, const config& c) {
  const vec mix = w.fn * rms_norm_plain(hc_flat(h), c.rms_eps);
  vec pre(c.hc_count);
  for (int a = 0; a < static_cast<int>(c.hc_count); ++a) pre[a] = sigmoid(mix[a] * w.scale[0] + w.base[a]) + c.hc_eps;
  return h.transpose() * pre;
}

inline hc_state hc_from_embedding(const vec& e, int hc_count) {
  hc_state h(hc_count, e.size());
  for (int a = 0; a < hc_count; ++a) h.row(a) = e.transpose();
  return h;
}

}  // namespace ordo::ref
