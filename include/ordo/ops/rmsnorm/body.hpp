/// rmsnorm phases shared by the GPU kernel and the CPU executor (ORDO_HD). A head's Σx² is split
/// over a logical warp of 32 lanes by the Order: lane l adds the squares of its elements in
/// ascending order with an explicit fmaf, starting from +0; the 32 partial sums combine by the
/// Order's xor butterfly; every lane then scales its elements. The per-row accumulate statement
/// of an R-row pass is the one-row statement (DESIGN §5).
#pragma once
#include <math.h>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/math.hpp"
#include "ordo/ops/rmsnorm/problem.hpp"
#include "ordo/quant/q8_32.hpp"
#include "ordo/order/orders.hpp"

namespace ordo::ops::rmsnorm {

/// Pointer to head h of row i of x.
ORDO_HD ORDO_FORCEINLINE const float* head_of(const problem& p, int i, int h) {
  return p.x + std::size_t(i) * p.x_stride + std::size_t(h) * std::size_t(p.head_dim);
}

/// One lane's partial Σx² of head h, for every live row i < p.rows (acc[i] starts at +0).
template <class Order, int R>
ORDO_HD ORDO_FORCEINLINE void accumulate_squares(const problem& p, int h, int lane, float (&acc)[R]) {
  const order::lane_range range = Order::range(lane, p.head_dim, 0, p.head_dim);
#pragma unroll 1
  for (int e = range.begin; e < range.end; e += range.step) {
#pragma unroll
    for (int i = 0; i < R; ++i) {
      if (i < p.rows) {
        const float v = head_of(p, i, h)[e];
        acc[i] = fmaf(v, v, acc[i]);
      }
    }
  }
}

/// 1 / sqrt(Σx² / n + eps): division, addition, then the portable rsqrt (0.5 ulp).
ORDO_HD ORDO_FORCEINLINE float inverse_rms(float sum_squares, int n, float eps) {
  return numeric::rsqrt_f32(sum_squares / float(n) + eps);
}

/// y = (x · inv) [· w]: two roundings, in the reference's order.
template <weighting W>
ORDO_HD ORDO_FORCEINLINE float scaled(float x, float inv, const float* weight, int e) {
  const float y = x * inv;
  if constexpr (W == weighting::weighted) return y * weight[e];
  return y;
}

/// Writes head h of row i: lane l writes elements l, l+32, … (the write split is free: each
/// element is computed alone).
template <weighting W>
ORDO_HD ORDO_FORCEINLINE void write_head(const problem& p, int i, int h, int lane, float inv) {
  const float* x = head_of(p, i, h);
  float* y = p.out + std::size_t(i) * p.out_stride + std::size_t(h) * std::size_t(p.head_dim);
#pragma unroll 1
  for (int e = lane; e < p.head_dim; e += order::lanes) y[e] = scaled<W>(x[e], inv, p.weight, e);
}

/// The q8_32 epilogue of head h of row i, from the f32 output just written (the caller orders the
/// writes before these reads): lane l quantizes blocks l, l+32, … with q8_32::quantize itself, so
/// the blocks are exactly what the standalone quantizer makes of the output row.
ORDO_HD ORDO_FORCEINLINE void write_q8_head(const problem& p, int i, int h, int lane) {
  const int first = h * (p.head_dim / 32), count = p.head_dim / 32;
  const float* y = p.out + std::size_t(i) * p.out_stride;
  auto* blocks = reinterpret_cast<quant::q8_32::block*>(p.q8 + std::size_t(i) * p.q8_row_bytes);
#pragma unroll 1
  for (int b = first + lane; b < first + count; b += order::lanes) quant::q8_32::quantize(y + 32 * std::size_t(b), blocks[b]);
}

}  // namespace ordo::ops::rmsnorm
