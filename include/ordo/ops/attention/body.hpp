/// attention phases shared by the GPU kernels and the CPU executor (ORDO_HD), in the Order's
/// sequence (attention.hpp). The walks over a chunk take two callables so one source serves both:
/// `logit_of(q_head, row)` returns z_j (the warp's combined q·k times τ — shfl_xor on the GPU,
/// the host butterfly on the CPU) and `accumulate(e, row)` adds e·row into the caller's acc_c (a
/// lane's dims on the GPU, every dim on the CPU). Everything else is plain per-head arithmetic.
#pragma once
#include <math.h>

#include <cstddef>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/math.hpp"
#include "ordo/ops/attention/problem.hpp"
#include "ordo/order/orders.hpp"

namespace ordo::ops::attention {

/// Head h of query row i.
ORDO_HD ORDO_FORCEINLINE const float* query_head(const problem& p, int i, int h) {
  return p.q + std::size_t(i) * p.q_stride + std::size_t(h) * std::size_t(p.head_dim);
}

/// The KV row of entry j of row i's list, or nullptr when the entry is invisible (general only:
/// the direct kernels take the caller's word that every entry is visible).
template <visibility V>
ORDO_HD ORDO_FORCEINLINE const float* listed_row(const problem& p, int i, int j) {
  const std::int32_t at = p.gather[std::size_t(i) * p.gather_stride + std::size_t(j)];
  if constexpr (V == visibility::general)
    if (at < 0) return nullptr;
  return p.kv + std::size_t(at) * p.kv_stride;
}

/// Dims a lane loads before it starts their fmaf chain (a whole DS4 head of 512 under ls32):
/// the loads of a dot are in flight together instead of one memory round trip per dim.
inline constexpr int dot_batch = 16;

/// One lane's partial q·row under the Order's dot order: its dims in ascending order, fmaf from +0.
/// Where the values are loaded is free; the fmaf chain is the one-dim-at-a-time sequence.
template <class Order>
ORDO_HD ORDO_FORCEINLINE float lane_dot(const float* q, const float* row, int n, int lane) {
  const order::lane_range r = Order::dot_order::range(lane, n, 0, n);
  float acc = 0.0f;
#pragma unroll 1
  for (int d0 = r.begin; d0 < r.end; d0 += dot_batch * r.step) {
    float a[dot_batch], b[dot_batch];
#pragma unroll
    for (int u = 0; u < dot_batch; ++u) {
      const int d = d0 + u * r.step;
      a[u] = d < r.end ? q[d] : 0.0f;
      b[u] = d < r.end ? row[d] : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < dot_batch; ++u)
      if (d0 + u * r.step < r.end) acc = fmaf(a[u], b[u], acc);
  }
  return acc;
}

/// z = (q·row)·τ: the combined dot, rounded once more by the scale.
ORDO_HD ORDO_FORCEINLINE float logit(float dot, float scale) { return dot * scale; }

/// The running max: a NaN logit never replaces the max (it compares false).
ORDO_HD ORDO_FORCEINLINE float larger(float m, float z) { return z > m ? z : m; }

/// e^(z − m): the subtraction rounds, then the portable exp (0.76 ulp).
ORDO_HD ORDO_FORCEINLINE float weight_of(float z, float m) { return numeric::exp_f32(z - m); }

ORDO_HD ORDO_FORCEINLINE float minus_infinity() { return numeric::detail::float_of(0xff800000u); }

/// List entries [begin, end) of chunk c of row i.
template <class Order>
ORDO_HD ORDO_FORCEINLINE int chunk_begin(int c) {
  return c * Order::chunk;
}
template <class Order>
ORDO_HD ORDO_FORCEINLINE int chunk_end(const problem& p, int i, int c) {
  const int end = (c + 1) * Order::chunk, n = p.n_listed[i];
  return end < n ? end : n;
}

/// Chunks of row i's own list.
template <class Order>
ORDO_HD ORDO_FORCEINLINE int row_chunks(const problem& p, int i) {
  return (p.n_listed[i] + Order::chunk - 1) / Order::chunk;
}

/// Entries a chunk walk takes at a time: their list slots and rows are fetched and their logits
/// computed together (`logits_of(q, rows, z)`: z[u] for every non-null rows[u], each z the
/// one-entry value), then the group's entries are taken one by one in list order — the max,
/// den and acc sequences are the one-entry walk's.
inline constexpr int walk_group = 4;

/// The rows of list entries [j0, j0 + walk_group) of row i (nullptr: past `end` or invisible).
template <visibility V>
ORDO_HD ORDO_FORCEINLINE void group_rows(const problem& p, int i, int j0, int end, const float* (&rows)[walk_group]) {
#pragma unroll
  for (int u = 0; u < walk_group; ++u) rows[u] = j0 + u < end ? listed_row<V>(p, i, j0 + u) : nullptr;
}

/// The max logit of chunk c's visible entries (−inf when it has none).
#if defined(ORDO_GPU_CUDA)
#pragma nv_exec_check_disable  // the CPU executor passes host callables; the kernels device ones
#endif
template <class Order, visibility V, class Logits>
ORDO_HD ORDO_FORCEINLINE float chunk_max(const problem& p, int i, int h, int c, Logits&& logits_of) {
  const float* q = query_head(p, i, h);
  float m = minus_infinity();
  const int end = chunk_end<Order>(p, i, c);
#pragma unroll 1
  for (int j0 = chunk_begin<Order>(c); j0 < end; j0 += walk_group) {
    const float* rows[walk_group];
    float z[walk_group];
    group_rows<V>(p, i, j0, end, rows);
    logits_of(q, rows, z);
#pragma unroll
    for (int u = 0; u < walk_group; ++u)
      if (rows[u]) m = larger(m, z[u]);
  }
  return m;
}

/// Chunk c's den_c (returned, from +0) and its acc_c (through `accumulate`, which the caller
/// zeroes first), over its visible entries in list order, with the head's max m.
#if defined(ORDO_GPU_CUDA)
#pragma nv_exec_check_disable  // the CPU executor passes host callables; the kernels device ones
#endif
template <class Order, visibility V, class Logits, class Accumulate>
ORDO_HD ORDO_FORCEINLINE float chunk_sums(const problem& p, int i, int h, int c, float m, Logits&& logits_of,
                                          Accumulate&& accumulate) {
  const float* q = query_head(p, i, h);
  float den = 0.0f;
  const int end = chunk_end<Order>(p, i, c);
#pragma unroll 1
  for (int j0 = chunk_begin<Order>(c); j0 < end; j0 += walk_group) {
    const float* rows[walk_group];
    float z[walk_group];
    group_rows<V>(p, i, j0, end, rows);
    logits_of(q, rows, z);
#pragma unroll
    for (int u = 0; u < walk_group; ++u) {
      if (rows[u]) {
        const float e = weight_of(z[u], m);
        den = den + e;
        accumulate(e, rows[u]);
      }
    }
  }
  return den;
}

/// Lane `lane`'s share of acc_c += e·row: dims lane, lane+32, … (each dim's sum is its own).
ORDO_HD ORDO_FORCEINLINE void accumulate_lane(float (&acc)[max_head_dim / order::lanes], float e, const float* row,
                                              int n, int lane) {
#pragma unroll
  for (int k = 0; k < max_head_dim / order::lanes; ++k) {
    const int d = lane + order::lanes * k;
    if (d < n) acc[k] = fmaf(e, row[d], acc[k]);
  }
}

/// The split schedule's slot of (row i, head h, chunk c): [max, den_c, acc_c[head_dim]].
template <class Order>
ORDO_HD ORDO_FORCEINLINE float* workspace_slot(const problem& p, int i, int h, int c) {
  const std::size_t chunks = std::size_t(chunks_of<Order>(p.max_listed));
  return p.workspace + ((std::size_t(i) * std::size_t(p.n_heads) + std::size_t(h)) * chunks + std::size_t(c)) *
                           (2 + std::size_t(p.head_dim));
}

/// Where head h of row i's output goes.
ORDO_HD ORDO_FORCEINLINE float* out_head(const problem& p, int i, int h) {
  return p.out + std::size_t(i) * p.out_stride + std::size_t(h) * std::size_t(p.head_dim);
}

}  // namespace ordo::ops::attention
