/// qmv: quantized matrix × R activation rows. Weights W [n_out rows, k] in a quant format F (row
/// r is row_bytes bytes of F blocks); activations are R rows already quantized to F::activation
/// blocks; out[i][r] = Σ_b dot_block(W[r] blocks of b, act[i][b]), reduced in the Order.
///
/// This header holds the problem description and the per-lane body that the GPU kernel and the
/// CPU executor both run. The tier R only decides how many activation rows share one weight
/// load: the lane split, each lane's accumulation sequence and the combine tree come from
/// (F, Order) alone, and the accumulate statement is the one-row statement (E1, DESIGN §3, §5).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/order/orders.hpp"
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

/// One lane's accumulation over the blocks [w0, w1) of a reduction of nb dot blocks. `window`
/// points at the weight bytes of block w0 (global memory, or a shared-memory copy of them).
/// The lane adds, in ascending order of its blocks, `acc[i] = acc[i] + term` for every live row i.
template <quant::quant_format F, class Order, int R>
ORDO_HD ORDO_FORCEINLINE void accumulate_window(const std::byte* window, int w0, int w1, int nb, int lane,
                                                const problem& p, float (&acc)[R]) {
  using act_block = typename F::activation::block;
  const order::lane_range range = Order::range(lane, nb, w0, w1);
#pragma unroll 1
  for (int b = range.begin; b < range.end; b += range.step) {
    const auto* w = reinterpret_cast<const typename F::block*>(window + std::size_t(b - w0) * dot_bytes<F>);
#pragma unroll
    for (int i = 0; i < R; ++i) {
      if (i < p.rows) {
        const auto* x = reinterpret_cast<const act_block*>(p.acts + std::size_t(i) * p.act_row_bytes) + b;
        acc[i] = acc[i] + F::dot_block(w, *x);
      }
    }
  }
}

}  // namespace ordo::ops::qmv
