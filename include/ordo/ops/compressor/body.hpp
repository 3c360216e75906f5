/// compressor phases shared by the GPU kernels and the CPU executor (ORDO_HD).
///   store: per element, kv copied and score + ape[p mod ratio] (one rounding) into the slot of p.
///   emit, on one logical warp, phase by phase (each phase reads only what the previous wrote):
///     1. pool: lane l pools columns l, l + 32, …: max over the window's scores in entry order,
///        then e = exp(s − max), den = den + e, num = fmaf(e, v, num) in entry order, num / den
///        (0 when every score is −inf);
///     2. norm: rmsnorm's own phases on the pooled row (weighted by the compressor norm, in place),
///        Σx² split and combined by the Order;
///     3. rope: rope's pair rotation, forward, at the window start (lane l rotates pairs l, l + 32, …);
///     4. attention rows: kv_store's FP8 block round trip on dims 0..d − n_rot − 1 (lane l owns
///        blocks l, l + 32, …); indexer rows: the indexer's Hadamard + FP4 round trip of the whole
///        row (indexer/body.hpp's hadamard_fp4_head, the transform its queries get), on lane 0.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/numeric/math.hpp"
#include "ordo/ops/compressor/problem.hpp"
#include "ordo/ops/indexer/body.hpp"
#include "ordo/ops/kv_store/body.hpp"
#include "ordo/ops/rmsnorm/body.hpp"
#include "ordo/ops/rope/body.hpp"
#include "ordo/order/orders.hpp"

namespace ordo::ops::compressor {

// ---- store -------------------------------------------------------------------------------------

/// Writes elements first, first + step, … of row i (position first_position + i) into its slot.
template <ratio Ra>
ORDO_HD ORDO_FORCEINLINE void write_store_row(const store_problem& p, int i, int first, int step) {
  const std::int64_t pos = p.first_position + i;
  const std::size_t slot = std::size_t(slot_of(pos, p.ring_rows)) * p.ring_stride;
  const float* kv = p.kv + std::size_t(i) * p.in_stride;
  const float* score = p.score + std::size_t(i) * p.in_stride;
  const float* ape = p.ape + std::size_t(pos % ratio_of(Ra)) * std::size_t(p.width);
#pragma unroll 1
  for (int j = first; j < p.width; j += step) {
    p.kv_ring[slot + std::size_t(j)] = kv[j];
    p.score_ring[slot + std::size_t(j)] = score[j] + ape[j];
  }
}

// ---- emit --------------------------------------------------------------------------------------

/// The position and ring column of window entry t of column j (entry order: ratio 4 lane A rows
/// p−7..p−4 at column j, then lane B rows p−3..p at column d + j; ratio 128 rows p−127..p).
template <ratio Ra>
ORDO_HD ORDO_FORCEINLINE std::size_t entry_offset(const emit_problem& p, int t, int j) {
  std::int64_t pos;
  int col = j;
  if constexpr (Ra == ratio::r4) {
    pos = p.position - 7 + t;
    if (t >= 4) col = p.d + j;
  } else {
    pos = p.position - 127 + t;
  }
  return std::size_t(slot_of(pos, p.ring_rows)) * p.ring_stride + std::size_t(col);
}

/// The softmax-pooled value of column j.
template <ratio Ra>
ORDO_HD ORDO_FORCEINLINE float pool_column(const emit_problem& p, int j) {
  constexpr int n = entries_of(Ra);
  const float minus_inf = numeric::detail::float_of(0xff800000u);
  float mx = minus_inf;
#pragma unroll 1
  for (int t = 0; t < n; ++t) {
    const float s = p.score_ring[entry_offset<Ra>(p, t, j)];
    mx = s > mx ? s : mx;
  }
  if (mx == minus_inf) return 0.0f;
  float den = 0.0f, num = 0.0f;
#pragma unroll 1
  for (int t = 0; t < n; ++t) {
    const std::size_t at = entry_offset<Ra>(p, t, j);
    const float e = numeric::exp_f32(p.score_ring[at] - mx);
    den = den + e;
    num = fmaf(e, p.kv_ring[at], num);
  }
  return num / den;
}

/// Phase 1 for one lane.
template <ratio Ra>
ORDO_HD ORDO_FORCEINLINE void pool_lane(const emit_problem& p, int lane) {
#pragma unroll 1
  for (int j = lane; j < p.d; j += order::lanes) p.out[j] = pool_column<Ra>(p, j);
}

/// The pooled row as rmsnorm sees it: one weighted head of d, normalized in place.
ORDO_HD ORDO_FORCEINLINE rmsnorm::problem norm_view(const emit_problem& p) {
  return rmsnorm::problem{p.out, std::size_t(p.d), p.norm, p.out, std::size_t(p.d), nullptr, 0, 1, p.d, 1, p.eps};
}

/// The normed row as rope sees it: one head of d whose last n_rot dims rotate.
ORDO_HD ORDO_FORCEINLINE rope::problem rope_view(const emit_problem& p) {
  return rope::problem{p.out, std::size_t(p.d), p.cos_sin, std::size_t(p.n_rot), 1, p.d, p.n_rot, 1};
}

/// Phase 3 for one lane.
ORDO_HD ORDO_FORCEINLINE void rope_lane(const emit_problem& p, int lane) {
  const rope::problem r = rope_view(p);
#pragma unroll 1
  for (int k = lane; k < p.n_rot / 2; k += order::lanes) rope::rotate_pair<rope::direction::forward>(r, 0, 0, k);
}

/// Phase 4 for one lane: the FP8 round trip of blocks lane, lane + 32, … of the first d − n_rot dims
/// (each block's amax is taken before the block is overwritten).
ORDO_HD ORDO_FORCEINLINE void fp8_lane(const emit_problem& p, int lane) {
  const int n = p.d - p.n_rot;
#pragma unroll 1
  for (int b0 = lane * kv_store::fp8_block; b0 < n; b0 += order::lanes * kv_store::fp8_block) {
    const int len = b0 + kv_store::fp8_block < n ? kv_store::fp8_block : n - b0;
    const float s = kv_store::block_scale(kv_store::block_amax(p.out, b0, len));
    for (int e = b0; e < b0 + len; ++e) p.out[e] = kv_store::fp8_roundtrip(p.out[e], s);
  }
}

/// Phase 4 of an indexer emission for one lane: lane 0 runs the Hadamard butterfly and the FP4
/// blocks over the whole row in place (every butterfly stage reads the previous one's outputs).
ORDO_HD ORDO_FORCEINLINE void hadamard_fp4_lane(const emit_problem& p, int lane) {
  if (lane == 0) indexer::hadamard_fp4_head(p.out, p.out, p.d);
}

/// Phase 4 of spec E for one lane.
template <emitted E>
ORDO_HD ORDO_FORCEINLINE void finish_lane(const emit_problem& p, int lane) {
  if constexpr (E == emitted::attention)
    fp8_lane(p, lane);
  else
    hadamard_fp4_lane(p, lane);
}

}  // namespace ordo::ops::compressor
