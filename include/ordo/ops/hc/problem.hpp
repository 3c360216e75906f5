/// The hyper-connection problem (ds4-model.md §3.3): R rows, each a residual state H of
/// n_streams × n_embd floats (stream-major, flat n_streams·n_embd). Three stages share it:
///   pre:  flat = rms_norm_plain(H), mix = fn · flat (24), pre/post weights by sigmoid, the 4×4
///         stream mixer by a 20-iteration Sinkhorn, x_sub = Σ_a pre[a] · H[a];
///   post: H_new[a] = Σ_b M[a][b] · H_old[b] + post[a] · f;
///   head: the output collapse, 4 mixes, weights sigmoid(·) + eps, x = Σ_a w[a] · H[a].
/// Fields a stage does not use are ignored (never read or written).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ordo::ops::hc {

/// DS4's hc_mult: the state has 4 streams (the Sinkhorn matrix is 4×4).
inline constexpr int n_streams = 4;
/// Mixes of the pre stage: pre (4), post (4), comb logits (16).
inline constexpr int n_pre_mix = (2 + n_streams) * n_streams;
/// Mixes of the output head: one weight per stream.
inline constexpr int n_head_mix = n_streams;
/// DS4's hc_sinkhorn_iters: 1 softmax step with one row normalization, then 19 column/row pairs.
inline constexpr int sinkhorn_iters = 20;

/// Which part of the hyper-connection the op computes.
enum class stage { pre, post, head };

constexpr std::string_view name_of(stage s) { return s == stage::pre ? "pre" : s == stage::post ? "post" : "head"; }

/// One hc call. Strides are in floats so tests can pad them.
struct problem {
  const float* h;             // [rows][h_stride]: n_streams * n_embd, stream-major (pre, head: the state; post: H_old)
  std::size_t h_stride;       // >= n_streams * n_embd
  const std::uint16_t* fn;    // [mixes][n_streams * n_embd] F16 mixer weights, mixes = 24 (pre) or 4 (head)
  const float* scale;         // [3] (pre) or [1] (head)
  const float* base;          // [24] (pre) or [4] (head)
  float* x;                   // [rows][x_stride]: n_embd, the collapsed row (pre: x_sub; head: the head input)
  std::size_t x_stride;       // >= n_embd
  float* split;               // [rows][split_stride]: pre(4), post(4), comb(16) with comb[a + 4b] = M[a][b];
                              // written by pre, read by post
  std::size_t split_stride;   // >= n_pre_mix
  const float* f;             // [rows][f_stride]: n_embd, the sublayer output (post)
  std::size_t f_stride;       // >= n_embd
  float* h_new;               // [rows][h_new_stride]: the new state (post); may be h itself (each element
                              // reads its four streams before it writes them)
  std::size_t h_new_stride;   // >= n_streams * n_embd
  int n_embd;                 // 4096 for DS4
  int rows;                   // live rows, 1..R; rows >= this are never read or written
  float rms_eps;              // 1e-6: the flat state's RMS norm
  float hc_eps;               // 1e-6: added to pre weights and to every Sinkhorn entry and denominator
};

}  // namespace ordo::ops::hc
