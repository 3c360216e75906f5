/// The qmv problem: weights W [n_out rows, k] in a quant format F (row r is weight_row_bytes bytes
/// of F blocks) times `rows` activation rows already quantized to F::activation blocks:
/// out[i][r] = Σ_b dot_block(W[r] blocks of b, act[i][b]), reduced in the spec's Order.
#pragma once
#include <cstddef>

#include "ordo/quant/concepts.hpp"

namespace ordo::ops::qmv {

/// One qmv call. Strides are in bytes (weights, activations) or floats (out) so tests can pad them.
struct problem {
  const std::byte* weights;     // [n_out][weight_row_bytes]: F blocks, k / F::block_elems per row
  std::size_t weight_row_bytes;  // >= k / F::block_elems * F::block_bytes
  const std::byte* acts;        // [rows][act_row_bytes]: F::activation blocks, k / dot_elems per row
  std::size_t act_row_bytes;     // >= k / dot_elems * sizeof(activation block)
  float* out;                   // [rows][out_stride]
  std::size_t out_stride;        // >= n_out
  int n_out;                    // weight rows
  int k;                        // reduction length in elements, a multiple of F::dot_elems
  int rows;                     // live activation rows, 1..R; rows >= this are never touched
};

/// Bytes of weights one dot block covers.
template <quant::quant_format F>
inline constexpr std::size_t dot_bytes = std::size_t(quant::blocks_per_dot<F>) * F::block_bytes;

/// Can a spec of format F and tier R run p? (shape, strides, live rows)
template <quant::quant_format F, int R>
constexpr bool fits(const problem& p) {
  if (p.k < 0 || p.k % F::dot_elems != 0 || p.n_out < 0 || p.rows < 1 || p.rows > R) return false;
  const std::size_t nb = std::size_t(p.k / F::dot_elems);
  return p.weight_row_bytes >= nb * dot_bytes<F> &&
         p.act_row_bytes >= nb * sizeof(typename F::activation::block) && p.out_stride >= std::size_t(p.n_out);
}

}  // namespace ordo::ops::qmv
