/// The hyper-connection problem (ds4-model.md §3.3; the calls of docs/engine.md A3, A4, O6 and the
/// output head): R rows, each with a residual state H of n_streams × n_embd floats (stream-major,
/// flat n_streams·n_embd) and the mixes upstream computed from it (rmsnorm plain of the flat
/// state, then qmv.f16 with the sublayer's fn). Four stages:
///   split:        mix (24) → pre[a] = σ(mix[a]·s0 + base[a]) + eps, post[a] = 2·σ(mix[4+a]·s1 +
///                 base[4+a]), comb = the 20-iteration Sinkhorn of L[a][b] = mix[8+a+4b]·s2 + base[8+a+4b];
///   weighted_sum: x_sub = Σ_a pre[a] · H[a];
///   post:         H_new[a] = Σ_b M[a][b] · H_old[b] + post[a] · f;
///   collapse:     the output head, mix (4) → w[a] = σ(mix[a]·s0 + base[a]) + eps, x = Σ_a w[a] · H[a].
/// Fields a stage does not use are ignored (never read or written).
#pragma once
#include <cstddef>
#include <string_view>

namespace ordo::ops::hc {

/// DS4's hc_mult: the state has 4 streams (the Sinkhorn matrix is 4×4).
inline constexpr int n_streams = 4;
/// Mixes of a sublayer's split: pre (4), post (4), comb logits (16); also the split's width.
inline constexpr int n_split = (2 + n_streams) * n_streams;
/// Mixes of the output head: one weight per stream.
inline constexpr int n_head_mix = n_streams;
/// DS4's hc_sinkhorn_iters: 1 softmax step with one row normalization, then 19 column/row pairs.
inline constexpr int sinkhorn_iters = 20;

/// Which hyper-connection call the op makes.
enum class stage { split, weighted_sum, post, collapse };

/// The stage's name trait (spec/axis_name.hpp finds it by ADL).
constexpr std::string_view ordo_name(stage s) {
  switch (s) {
    case stage::split: return "split";
    case stage::weighted_sum: return "weighted_sum";
    case stage::post: return "post";
    case stage::collapse: return "collapse";
  }
  return "";
}

/// One hc call. Strides are in floats so tests can pad them.
struct problem {
  const float* mix;           // [rows][mix_stride]: 24 (split) or 4 (collapse) mixes
  std::size_t mix_stride;     // >= the stage's mix count
  const float* scale;         // [3] (split) or [1] (collapse)
  const float* base;          // [24] (split) or [4] (collapse)
  float* split;               // [rows][split_stride]: pre(4), post(4), comb(16) with comb[a + 4b] = M[a][b];
                              // written by split, read by weighted_sum and post
  std::size_t split_stride;   // >= n_split
  const float* h;             // [rows][h_stride]: n_streams * n_embd, stream-major (post: H_old)
  std::size_t h_stride;       // >= n_streams * n_embd
  float* x;                   // [rows][x_stride]: n_embd (weighted_sum: x_sub; collapse: the head input)
  std::size_t x_stride;       // >= n_embd
  const float* f;             // [rows][f_stride]: n_embd, the sublayer output (post)
  std::size_t f_stride;       // >= n_embd
  float* h_new;               // [rows][h_new_stride]: the new state (post); may be h itself (each element
                              // reads its four streams before it writes them)
  std::size_t h_new_stride;   // >= n_streams * n_embd
  int n_embd;                 // 4096 for DS4
  int rows;                   // live rows, 1..R; rows >= this are never read or written
  float hc_eps;               // 1e-6: added to the pre / head weights and to every Sinkhorn entry and denominator
};

/// Whether a problem fits spec (R, S): rows within the tier, strides that hold a row, the
/// pointers the stage uses.
template <int R, stage S>
constexpr bool fits(const problem& p) {
  if (p.rows < 1 || p.rows > R) return false;
  const std::size_t flat = std::size_t(n_streams) * std::size_t(p.n_embd > 0 ? p.n_embd : 0);
  const bool split_ok = p.split != nullptr && p.split_stride >= std::size_t(n_split);
  const bool state_ok = p.n_embd >= 1 && p.h != nullptr && p.h_stride >= flat;
  const bool x_ok = p.x != nullptr && p.x_stride >= std::size_t(p.n_embd);
  const auto mix_ok = [&](int count) {
    return p.mix != nullptr && p.mix_stride >= std::size_t(count) && p.scale != nullptr && p.base != nullptr;
  };
  if constexpr (S == stage::split) return mix_ok(n_split) && split_ok;
  if constexpr (S == stage::weighted_sum) return split_ok && state_ok && x_ok;
  if constexpr (S == stage::post)
    return split_ok && state_ok && p.f != nullptr && p.f_stride >= std::size_t(p.n_embd) && p.h_new != nullptr &&
           p.h_new_stride >= flat;
  return mix_ok(n_head_mix) && state_ok && x_ok;
}

}  // namespace ordo::ops::hc
