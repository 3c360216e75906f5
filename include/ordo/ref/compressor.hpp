/// The streaming KV compressor of the reference (ds4-model.md §3.4.6): every token writes a
/// projected row and a gate score row into a window state; when a window of `ratio` tokens
/// completes, each column is pooled by a softmax over the window's scores, RMS-normed and
/// RoPE'd at the window's first position. Ratio 4 uses width 2d and overlapping windows: lane A
/// (columns 0..d-1) of the previous window and lane B (columns d..2d-1) of the current one.
#pragma once
#include <cmath>
#include <limits>
#include <optional>

#include "ordo/ref/basic.hpp"
#include "ordo/ref/config.hpp"
#include "ordo/ref/rope.hpp"
#include "ordo/ref/weights.hpp"

namespace ordo::ref {

struct compressor_state {
  int ratio = 0;
  int d = 0;   // output width
  mat kv;      // ratio 4: [8, 2d] (rows 0-3 previous window, 4-7 current); ratio 128: [128, d]
  mat score;   // same shape, -inf where nothing was written

  compressor_state() = default;
  compressor_state(int ratio_, int d_) : ratio(ratio_), d(d_) {
    const int coff = ratio == 4 ? 2 : 1;
    kv = mat::Zero(coff * ratio, coff * d);
    score = mat::Constant(coff * ratio, coff * d, -std::numeric_limits<double>::infinity());
  }
};

/// Softmax-pools column j over the given (score, value) entries; all -inf gives 0.
inline double pool_column(const double* s, const double* v, int n) {
  double mx = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) mx = std::max(mx, s[i]);
  if (mx == -std::numeric_limits<double>::infinity()) return 0.0;
  double den = 0, num = 0;
  for (int i = 0; i < n; ++i) {
    const double e = std::exp(s[i] - mx);
    den += e;
    num += e * v[i];
  }
  return num / den;
}

/// Feeds the normed sublayer input x of the token at pos. Returns the emitted compressed row
/// (normed and RoPE'd, before any simulation) when pos completes a window.
inline std::optional<vec> compressor_step(compressor_state& st, const compressor_weights& w, const vec& x,
                                          int pos, const rope_params& rope, double rms_eps) {
  const int r = st.ratio, d = st.d;
  const vec kv_t = w.wkv * x;
  const vec sc_t = w.wgate * x + w.ape.row(pos % r).transpose();
  const int slot = r == 4 ? 4 + pos % 4 : pos % r;
  st.kv.row(slot) = kv_t.transpose();
  st.score.row(slot) = sc_t.transpose();
  if ((pos + 1) % r != 0) return std::nullopt;

  vec out(d);
  if (r == 4) {
    double s[8], v[8];
    for (int j = 0; j < d; ++j) {
      for (int i = 0; i < 4; ++i) {
        s[i] = st.score(i, j), v[i] = st.kv(i, j);                  // lane A, previous window
        s[4 + i] = st.score(4 + i, d + j), v[4 + i] = st.kv(4 + i, d + j);  // lane B, current
      }
      out[j] = pool_column(s, v, 8);
    }
    st.kv.topRows(4) = st.kv.bottomRows(4);
    st.score.topRows(4) = st.score.bottomRows(4);
  } else {
    std::vector<double> s(r), v(r);
    for (int j = 0; j < d; ++j) {
      for (int i = 0; i < r; ++i) s[i] = st.score(i, j), v[i] = st.kv(i, j);
      out[j] = pool_column(s.data(), v.data(), r);
    }
  }
  out = rms_norm(out, w.norm, rms_eps);
  rope_tail(out.data(), d, rope, pos + 1 - r, rope_direction::forward);
  return out;
}

}  // namespace ordo::ref
