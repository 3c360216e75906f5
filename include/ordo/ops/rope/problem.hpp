/// The rope problem: tail RoPE in place on R rows of n_heads heads of head_dim floats; in each head
/// only the last n_rot dims rotate, in adjacent pairs (GPT-J / ggml mode 0, ds4-model.md §3.4.3).
/// The angles are not computed on the device: each row brings its position's (cos θ_k, sin θ_k)
/// pairs, computed on the host in double and rounded to float (table.hpp, DESIGN §4), so the
/// kernel is only multiplies and fmaf and its bits are the same everywhere.
#pragma once
#include <cstddef>
#include <string_view>

namespace ordo::ops::rope {

/// forward: x0' = x0·c − x1·s, x1' = x0·s + x1·c. inverse: the same with s negated (the rotation
/// back, applied to the attention output heads before the output projection).
enum class direction { forward, inverse };

/// The direction's name trait (spec/axis_name.hpp finds it by ADL).
constexpr std::string_view ordo_name(direction d) { return d == direction::forward ? "forward" : "inverse"; }

struct problem {
  float* x;                   // [rows][x_stride], rotated in place: n_heads * head_dim live floats
  std::size_t x_stride;       // >= n_heads * head_dim
  const float* cos_sin;       // [rows][table_stride]: n_rot / 2 pairs (cos θ_k, sin θ_k) of the row's position
  std::size_t table_stride;   // >= n_rot
  int n_heads;                // 64 (Q, indexer Q), 1 (KV rows)
  int head_dim;               // 512 (Q, KV), 128 (indexer)
  int n_rot;                  // 64: dims [head_dim − n_rot, head_dim) of each head rotate
  int rows;                   // live rows, 1..R
};

/// Whether a problem fits a spec of tier R: rows within the tier, an even tail inside the head.
template <int R>
constexpr bool fits(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_heads < 1 || p.n_rot < 2 || p.n_rot % 2 != 0 || p.n_rot > p.head_dim)
    return false;
  return p.x_stride >= std::size_t(p.n_heads) * std::size_t(p.head_dim) && p.table_stride >= std::size_t(p.n_rot);
}

}  // namespace ordo::ops::rope
