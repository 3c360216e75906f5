/// rmsnorm phases shared by the GPU kernel and the CPU executor (ORDO_HD). A head's Σx² is split
/// over a logical warp of 32 lanes by the Order: lane l adds the squares of its elements in
/// ascending order with an explicit fmaf, starting from +0; the 32 partial sums combine by the
/// Order's xor butterfly; every lane then scales its elements. The per-row accumulate statement
/// of an R-row pass is the one-row statement (DESIGN §5).
///
/// Where the loads happen is free, the fmaf sequence is not: a lane loads its next
/// `squares_batch` elements before it adds any of them (the loads are in flight together; the
/// chain then consumes them in the Order's sequence), and the accumulation runs over windows
/// [w0, w1) of the head so the GPU can feed it from a CTA-staged copy (kernel.hpp), a window
/// after the next; windows taken in ascending order give each lane its elements in ascending
/// order, i.e. the same chain as one window over the whole head (what the CPU executor runs).
#pragma once
#include <math.h>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/math.hpp"
#include "ordo/ops/rmsnorm/problem.hpp"
#include "ordo/quant/q8_32.hpp"
#include "ordo/order/orders.hpp"

namespace ordo::ops::rmsnorm {

/// Elements one lane loads ahead of its ordered chain (and one thread ahead of its writes).
inline constexpr int squares_batch = 8;
inline constexpr int write_batch = 8;

/// Pointer to head h of row i of x.
ORDO_HD ORDO_FORCEINLINE const float* head_of(const problem& p, int i, int h) {
  return p.x + std::size_t(i) * p.x_stride + std::size_t(h) * std::size_t(p.head_dim);
}

/// One lane's partial Σx² over the elements of window [w0, w1) of a head of nb elements, added
/// to acc; `window` points at element w0 (src[e - w0] is element e).
template <class Order>
ORDO_HD ORDO_FORCEINLINE void accumulate_squares_window(const float* window, int nb, int w0, int w1, int lane,
                                                        float& acc) {
  const order::lane_range r = Order::range(lane, nb, w0, w1);
#pragma unroll 1
  for (int e = r.begin; e < r.end; e += squares_batch * r.step) {
    float v[squares_batch];
#pragma unroll
    for (int u = 0; u < squares_batch; ++u) v[u] = e + u * r.step < r.end ? window[e + u * r.step - w0] : 0.0f;
#pragma unroll
    for (int u = 0; u < squares_batch; ++u)
      if (e + u * r.step < r.end) acc = fmaf(v[u], v[u], acc);
  }
}

/// One lane's partial Σx² of head h, for every live row i < p.rows (acc[i] starts at +0): the
/// whole head as one window.
template <class Order, int R>
ORDO_HD ORDO_FORCEINLINE void accumulate_squares(const problem& p, int h, int lane, float (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
    if (i < p.rows) accumulate_squares_window<Order>(head_of(p, i, h), p.head_dim, 0, p.head_dim, lane, acc[i]);
}

/// 1 / sqrt(Σx² / n + eps): division, addition, then the portable rsqrt (0.5 ulp).
ORDO_HD ORDO_FORCEINLINE float inverse_rms(float sum_squares, int n, float eps) {
  return numeric::rsqrt_f32(sum_squares / float(n) + eps);
}

/// y = (x · inv) [· w]: two roundings, in the reference's order.
template <weighting W>
ORDO_HD ORDO_FORCEINLINE float scaled(float x, float inv, float w) {
  const float y = x * inv;
  if constexpr (W == weighting::weighted) return y * w;
  return y;
}

/// Writes head h of row i, elements t, t + threads, … (the write split is free: each element is
/// computed alone). `x` is the head's input (global, or a staged copy of it); it may be the
/// output itself (in-place norm): a thread reads only the elements it then writes.
template <weighting W>
ORDO_HD ORDO_FORCEINLINE void write_head_part(const problem& p, const float* x, int i, int h, int t, int threads,
                                              float inv) {
  float* y = p.out + std::size_t(i) * p.out_stride + std::size_t(h) * std::size_t(p.head_dim);
#pragma unroll 1
  for (int e0 = t; e0 < p.head_dim; e0 += write_batch * threads) {
    float v[write_batch], w[write_batch];  // every load of the batch before its first store
#pragma unroll
    for (int u = 0; u < write_batch; ++u) {
      const int e = e0 + u * threads;
      v[u] = e < p.head_dim ? x[e] : 0.0f;
      w[u] = W == weighting::weighted && e < p.head_dim ? p.weight[e] : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < write_batch; ++u)
      if (e0 + u * threads < p.head_dim) y[e0 + u * threads] = scaled<W>(v[u], inv, w[u]);
  }
}

/// Lane `lane` of 32 writes its share of head h of row i from the input itself.
template <weighting W>
ORDO_HD ORDO_FORCEINLINE void write_head(const problem& p, int i, int h, int lane, float inv) {
  write_head_part<W>(p, head_of(p, i, h), i, h, lane, order::lanes, inv);
}

/// The q8_32 epilogue of head h of row i, from the f32 output just written (the caller orders the
/// writes before these reads): thread t of `threads` quantizes blocks t, t + threads, … with
/// q8_32::quantize itself, so the blocks are exactly what the standalone quantizer makes of the
/// output row.
ORDO_HD ORDO_FORCEINLINE void write_q8_head_part(const problem& p, int i, int h, int t, int threads) {
  const int first = h * (p.head_dim / 32), count = p.head_dim / 32;
  const float* y = p.out + std::size_t(i) * p.out_stride;
  auto* blocks = reinterpret_cast<quant::q8_32::block*>(p.q8 + std::size_t(i) * p.q8_row_bytes);
#pragma unroll 1
  for (int b = first + t; b < first + count; b += threads) quant::q8_32::quantize(y + 32 * std::size_t(b), blocks[b]);
}

ORDO_HD ORDO_FORCEINLINE void write_q8_head(const problem& p, int i, int h, int lane) {
  write_q8_head_part(p, i, h, lane, order::lanes);
}

}  // namespace ordo::ops::rmsnorm
