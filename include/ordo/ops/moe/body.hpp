/// The phases of moe that the GPU kernel and the CPU executor both run (ORDO_HD).
///
/// Grouping: the rows' (row, slot) pairs are sorted by expert id (then row, then slot) into units,
/// one per distinct selected expert, plus unit 0, the shared expert, whose pairs are every row at
/// slot n_used. A unit's pairs share each weight row's load, R pairs per pass; the accumulate of a
/// pass is qmv's statement (qmv::accumulate_window's, over gathered rows), so each pair's projection has the
/// bits of qmv at tier 1 on the expert's slice, whoever else is in the pass (E1). The unit order
/// cannot change bits: every pair's result lands in its own (row, slot) place, and the sum over a
/// row's slots runs afterwards in the fixed order of `steps::weighted_sum`.
///
/// `steps` names the three points the mutation checks change (tests/property/moe): which expert a
/// pair reads, the pass's accumulate, and the weighted-sum order. A kernel takes them as a type.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/gpu/warp_scan.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/numeric/math.hpp"
#include "ordo/ops/moe/layout.hpp"
#include "ordo/ops/qmv/body.hpp"

namespace ordo::ops::moe {

/// A pair's code: row · slots_per_row + slot (slot n_used is the shared expert).
inline constexpr int slots_per_row = max_used + 1;

struct steps {
  /// The expert that row i selected in slot k.
  ORDO_HD ORDO_FORCEINLINE static int expert_of(const problem& p, int i, int k) {
    return p.expert_ids[std::size_t(i) * p.route_stride + std::size_t(k)];
  }
  /// One pass's accumulate: qmv::accumulate_window's statement over the pass's pairs instead of
  /// a problem's strided rows — the Order's lane range, ascending blocks, `acc[j] = acc[j] +
  /// F::dot_block(w, x)` for every live pair (the one-row statement; E1). The property test
  /// EveryPairsProjectionsAreQmvTierOneBits checks the bits against qmv itself.
  template <quant::quant_format F, class Order, int R, class Rows>
  ORDO_HD ORDO_FORCEINLINE static void accumulate(const std::byte* window, int w0, int w1, int nb, int lane, int live,
                                                  const Rows& rows, float (&acc)[R]) {
    const order::lane_range range = Order::range(lane, nb, w0, w1);
#pragma unroll 1
    for (int b = range.begin; b < range.end; b += range.step) {
      const auto* w = reinterpret_cast<const typename F::block*>(window + std::size_t(b - w0) * qmv::dot_bytes<F>);
#pragma unroll
      for (int j = 0; j < R; ++j) {
        if (j < live) acc[j] = acc[j] + F::dot_block(w, rows.row(j)[b]);
      }
    }
  }
  /// out = ((part[0] + part[1]) + … + part[n_used−1]) + part[n_used]: the slots in output order,
  /// then the shared expert (the reference's order: routed sum first, shared added last).
  ORDO_HD ORDO_FORCEINLINE static float weighted_sum(const float* part, int n_used) {
    float s = part[0];
    for (int k = 1; k < n_used; ++k) s = s + part[k];
    return s + part[n_used];
  }
};

/// The routed units of a problem with at most R rows: distinct valid experts ascending, each with
/// its pairs. A pair whose id is outside [0, n_expert) is in no unit (its slot's partial is NaN).
template <int R>
struct unit_list {
  static constexpr int max_pairs = R * max_used;
  int n_units;                  // routed units; unit u >= 1 is routed unit u − 1, unit 0 the shared expert
  int expert[max_pairs];        // [n_units] expert ids, ascending
  int first[max_pairs + 1];     // routed unit r's pairs: pair[first[r] .. first[r + 1])
  int pair[max_pairs];          // pair codes, (row, slot) ascending within a unit
  int pair_expert[max_pairs];   // the expert of each sorted pair
};

/// The units of n pairs already sorted in pair / pair_expert: each run of one expert is a unit.
template <int R>
ORDO_HD inline void scan_units(unit_list<R>& ul, int n) {
  int u = 0;
#pragma unroll 1
  for (int j = 0; j < n; ++j)
    if (j == 0 || ul.pair_expert[j] != ul.pair_expert[j - 1]) {
      ul.expert[u] = ul.pair_expert[j];
      ul.first[u] = j;
      ++u;
    }
  ul.first[u] = n;
  ul.n_units = u;
}

template <class Steps, int R>
ORDO_HD inline void build_units(const problem& p, unit_list<R>& ul) {
  int n = 0;
#pragma unroll 1
  for (int i = 0; i < p.rows; ++i)
#pragma unroll 1
    for (int k = 0; k < p.n_used; ++k) {
      const int e = Steps::expert_of(p, i, k);
      if (e < 0 || e >= p.n_expert) continue;
      // insertion sort by expert; pairs arrive in (row, slot) order, so equal experts keep it
      int j = n;
      while (j > 0 && ul.pair_expert[j - 1] > e) {
        ul.pair_expert[j] = ul.pair_expert[j - 1];
        ul.pair[j] = ul.pair[j - 1];
        --j;
      }
      ul.pair_expert[j] = e;
      ul.pair[j] = i * slots_per_row + k;
      ++n;
    }
  scan_units(ul, n);
}

#if defined(ORDO_DEVICE_PASS)
/// scan_units by one warp (its lanes 0..31 call; ul in shared memory), the same units: a pair that
/// starts a run of one expert takes the unit index its inclusive count of run starts gives. Thread
/// 0's serial walk cost a shared-memory latency a pair while the CTA waited at the barrier after it
/// (ncu, session 20: 11% of the mxfp4 down pass's stall samples at its prologue barriers). Ends
/// with gpu::sync_warp: the warp's lanes see the whole list.
template <int R>
ORDO_DEVICE inline void scan_units_warp(unit_list<R>& ul, int n, int lane) {
  int units = 0;
#pragma unroll 1
  for (int j0 = 0; j0 < n; j0 += gpu::logical_warp) {
    const int j = j0 + lane;
    const bool starts = j < n && (j == 0 || ul.pair_expert[j] != ul.pair_expert[j - 1]);
    const int count = gpu::inclusive_sum_i32(starts ? 1 : 0, lane);
    if (starts) {
      ul.expert[units + count - 1] = ul.pair_expert[j];
      ul.first[units + count - 1] = j;
    }
    units += gpu::shfl_i32(count, gpu::logical_warp - 1);
  }
  if (lane == 0) {
    ul.first[units] = n;
    ul.n_units = units;
  }
  gpu::sync_warp();
}

/// build_units by every thread of a CTA (ul in shared memory), the same unit_list: the ids are read
/// in parallel, and the stable insertion sort by expert becomes ranks — pair t = i · n_used + k
/// lands at the count of valid pairs s before it in (expert, s) order, which is where the
/// insertion sort puts it. One thread's serial walk issued its id loads one after another, a
/// memory latency each, in every CTA. The first warp counts the valid pairs and scans the units
/// (scan_units_warp). Ends with the first warp's sync_warp and no barrier: the caller's barrier
/// (after whatever else the first warp builds from the list) publishes it to the CTA.
template <class Steps, int R>
ORDO_DEVICE inline void build_units_cta(const problem& p, unit_list<R>& ul) {
  const int n_all = p.rows * p.n_used;  // <= R · max_used = unit_list<R>::max_pairs (fits)
  int* raw = ul.expert;                 // scratch: each pair's id, −1 when out of range, until the scan
  for (int t = int(threadIdx.x); t < n_all; t += int(blockDim.x)) {
    const int e = Steps::expert_of(p, t / p.n_used, t % p.n_used);
    raw[t] = e >= 0 && e < p.n_expert ? e : -1;
  }
  __syncthreads();
  for (int t = int(threadIdx.x); t < n_all; t += int(blockDim.x)) {
    const int e = raw[t];
    if (e < 0) continue;
    int rank = 0;
#pragma unroll 1
    for (int s = 0; s < n_all; ++s) {
      const int f = raw[s];
      rank += (f >= 0 && (f < e || (f == e && s < t))) ? 1 : 0;
    }
    ul.pair_expert[rank] = e;
    ul.pair[rank] = (t / p.n_used) * slots_per_row + t % p.n_used;
  }
  const int lane = int(threadIdx.x) % gpu::logical_warp;
  const bool first_warp = int(threadIdx.x) < gpu::logical_warp;
  int n = 0;
  if (first_warp)
#pragma unroll 1
    for (int s0 = 0; s0 < n_all; s0 += gpu::logical_warp) {
      const int valid = s0 + lane < n_all && raw[s0 + lane] >= 0 ? 1 : 0;
      n += gpu::shfl_i32(gpu::inclusive_sum_i32(valid, lane), gpu::logical_warp - 1);
    }
  __syncthreads();  // every rank is placed and the first warp has counted before the scan overwrites raw
  if (first_warp) scan_units_warp(ul, n, lane);
}
#endif

/// Pairs of unit u (0: the shared expert, every row).
template <int R>
ORDO_HD ORDO_FORCEINLINE int unit_pair_count(const unit_list<R>& ul, const problem& p, int u) {
  return u == 0 ? p.rows : ul.first[u] - ul.first[u - 1];
}
template <int R>
ORDO_HD ORDO_FORCEINLINE int unit_pair(const unit_list<R>& ul, const problem& p, int u, int j) {
  return u == 0 ? j * slots_per_row + p.n_used : ul.pair[ul.first[u - 1] + j];
}

/// The activation rows of one pass: pair j of the pass reads rows.ptr[j].
template <class ActBlock, int R>
struct gathered_act_rows {
  const ActBlock* ptr[R];
  ORDO_HD ORDO_FORCEINLINE const ActBlock* row(int j) const { return ptr[j]; }
};

/// x rows (gate_up) of the pass's pairs [j0, j0 + live) of unit u.
template <class ActBlock, int R>
ORDO_HD ORDO_FORCEINLINE gathered_act_rows<ActBlock, R> pass_x_rows(const unit_list<R>& ul, const problem& p, int u,
                                                                     int j0, int live) {
  gathered_act_rows<ActBlock, R> g{};
  const std::byte* x = u == 0 ? p.x_shared : p.x_routed;
  const std::size_t stride = u == 0 ? p.x_shared_row_bytes : p.x_routed_row_bytes;
  for (int j = 0; j < live; ++j)
    g.ptr[j] = reinterpret_cast<const ActBlock*>(x + std::size_t(unit_pair(ul, p, u, j0 + j) / slots_per_row) * stride);
  return g;
}

/// mid_act rows (down) of the pass's pairs [j0, j0 + live) of unit u.
template <class ActBlock, int R>
ORDO_HD ORDO_FORCEINLINE gathered_act_rows<ActBlock, R> pass_mid_rows(const unit_list<R>& ul, const problem& p, int u,
                                                                       int j0, int live) {
  gathered_act_rows<ActBlock, R> g{};
  for (int j = 0; j < live; ++j) {
    const int code = unit_pair(ul, p, u, j0 + j);
    const int slot_index = (code / slots_per_row) * (p.n_used + 1) + code % slots_per_row;
    g.ptr[j] = reinterpret_cast<const ActBlock*>(p.mid_act + std::size_t(slot_index) * p.mid_act_row_bytes);
  }
  return g;
}

/// Index of (row, slot) in the [rows][n_used + 1] slot arrays (mid, mid_act, probes).
ORDO_HD ORDO_FORCEINLINE std::size_t slot_index(const problem& p, int code) {
  return std::size_t(code / slots_per_row) * std::size_t(p.n_used + 1) + std::size_t(code % slots_per_row);
}

/// The router weight of a pair (1 for the shared expert).
ORDO_HD ORDO_FORCEINLINE float pair_weight(const problem& p, int code) {
  const int slot = code % slots_per_row;
  return slot == p.n_used ? 1.0f : p.expert_weights[std::size_t(code / slots_per_row) * p.route_stride + std::size_t(slot)];
}

/// silu(min(g, c)) · clamp(u, −c, c) · w, with the reference's comparisons (std::min, std::clamp:
/// a NaN g or u passes through); c = 0: no clamp.
ORDO_HD ORDO_FORCEINLINE float swiglu_mid(float g, float u, float w, float c) {
  if (c > 0.0f) {
    g = c < g ? c : g;
    u = u < -c ? -c : (c < u ? c : u);
  }
  return numeric::silu_f32(g) * u * w;
}

/// A quiet NaN: the partial of a slot whose expert id is out of range.
ORDO_HD ORDO_FORCEINLINE float missing_partial() { return numeric::detail::float_of(0x7fc00000u); }

}  // namespace ordo::ops::moe
