/// The attention kernel of spec (R, Order, V, S) for the generic GPU entry and CPU executor.
///
/// CPU executor: work item = one (query row, head); the 32 logical lanes are visited inside each
/// logit (their partial dots, then order::combine on host_lanes, the device's butterfly), so
/// lanes = 1; acc_c holds every dim (lane ownership cannot change an element's sum). The whole
/// schedule walks the head's chunks in order; the split schedule runs its three phases for the
/// head through the workspace (its slots belong to one (row, head), so running them per head is
/// the grid's arithmetic).
///
/// GPU: one logical warp per (query row, head) — and per chunk in the split schedule. z_j is the
/// lanes' partial dots combined by the Order's xor butterfly (every lane ends with the same z_j,
/// so every lane keeps the same max and den); lane l owns dims l, l+32, … of acc. The whole
/// schedule is one pass; the split schedule is three dependent passes (chunk maxima, chunk sums,
/// the combine in chunk order; ops/gpu_entry.hpp's phases). Nothing about the arithmetic depends
/// on R, the grid or the device.
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

#include "ordo/ops/attention/body.hpp"
#include "ordo/order/combine.hpp"
#if defined(ORDO_DEVICE_PASS)
#include "ordo/gpu/intrinsics.hpp"
#endif

namespace ordo::ops::attention {

/// z_j on the host, for each entry of a walk group: the 32 lanes' partial dots, the butterfly, ×τ.
template <class Order>
struct host_logit {
  const problem& p;
  void operator()(const float* q, const float* const (&rows)[walk_group], float (&z)[walk_group]) const {
    for (int u = 0; u < walk_group; ++u) {
      if (!rows[u]) continue;
      order::host_lanes partial{};
      for (int lane = 0; lane < order::lanes; ++lane) partial.v[lane] = lane_dot<Order>(q, rows[u], p.head_dim, lane);
      z[u] = logit(order::combine<typename Order::dot_order>(partial), p.scale);
    }
  }
};

/// acc_c[d] = fmaf(e, row[d], acc_c[d]) for every dim.
inline auto host_accumulate(float* acc, int n) {
  return [acc, n](float e, const float* row) {
    for (int d = 0; d < n; ++d) acc[d] = fmaf(e, row[d], acc[d]);
  };
}

/// The head's max from the split workspace's slots: s_h, then chunk 0, 1, … (as the whole
/// schedule takes it).
template <class Order>
ORDO_HD ORDO_FORCEINLINE float gathered_max(const problem& p, int i, int h) {
  float m = p.sinks[h];
#pragma unroll 1
  for (int k = 0; k < row_chunks<Order>(p, i); ++k) m = larger(m, workspace_slot<Order>(p, i, h, k)[0]);
  return m;
}

inline constexpr int warps_per_cta = 4;
inline constexpr int dims_per_lane = max_head_dim / order::lanes;

template <int R, class Order, visibility V, schedule S>
struct kernel {
  using problem = attention::problem;
  static constexpr bool can_run(const problem& p) { return fits<R, S>(p); }

  // ---- CPU executor: work item = (row, head), the lanes visited inside each logit
  static constexpr int lanes = 1;
  struct lane_state {};
  static long work_items(const problem& p) { return long(p.rows) * long(p.n_heads); }
  static void lane_phase(const problem& p, long item, int, lane_state&) {
    const int i = int(item / p.n_heads), h = int(item % p.n_heads);
    if constexpr (S == schedule::whole)
      whole_head(p, i, h);
    else
      split_head(p, i, h);
  }
  static void finish(const problem&, long, const lane_state (&)[lanes]) {}

  static void whole_head(const problem& p, int i, int h) {
    const int n = p.head_dim;
    std::vector<float> acc(static_cast<std::size_t>(n), 0.0f), acc_c(static_cast<std::size_t>(n));
    float m = p.sinks[h];
    for (int c = 0; c < row_chunks<Order>(p, i); ++c) m = larger(m, chunk_max<Order, V>(p, i, h, c, host_logit<Order>{p}));
    float den = weight_of(p.sinks[h], m);
    for (int c = 0; c < row_chunks<Order>(p, i); ++c) {
      std::fill(acc_c.begin(), acc_c.end(), 0.0f);
      den = den + chunk_sums<Order, V>(p, i, h, c, m, host_logit<Order>{p}, host_accumulate(acc_c.data(), n));
      for (int d = 0; d < n; ++d) acc[std::size_t(d)] = acc[std::size_t(d)] + acc_c[std::size_t(d)];
    }
    float* out = out_head(p, i, h);
    for (int d = 0; d < n; ++d) out[d] = acc[std::size_t(d)] / den;
  }

  /// The three split phases of one head; chunks past the row's own list are neither written nor read.
  static void split_head(const problem& p, int i, int h) {
    const int n = p.head_dim;
    for (int c = 0; c < row_chunks<Order>(p, i); ++c)
      workspace_slot<Order>(p, i, h, c)[0] = chunk_max<Order, V>(p, i, h, c, host_logit<Order>{p});
    for (int c = 0; c < row_chunks<Order>(p, i); ++c) {
      const float m = gathered_max<Order>(p, i, h);
      float* slot = workspace_slot<Order>(p, i, h, c);
      std::fill(slot + 2, slot + 2 + n, 0.0f);
      slot[1] = chunk_sums<Order, V>(p, i, h, c, m, host_logit<Order>{p}, host_accumulate(slot + 2, n));
    }
    float den = weight_of(p.sinks[h], gathered_max<Order>(p, i, h));
    float* out = out_head(p, i, h);
    for (int d = 0; d < n; ++d) out[d] = 0.0f;
    for (int c = 0; c < row_chunks<Order>(p, i); ++c) {
      const float* slot = workspace_slot<Order>(p, i, h, c);
      den = den + slot[1];
      for (int d = 0; d < n; ++d) out[d] = out[d] + slot[2 + d];
    }
    for (int d = 0; d < n; ++d) out[d] = out[d] / den;
  }

  // ---- GPU entry: a warp per (row, head[, chunk]); whole = 1 pass, split = 3 dependent passes
  static constexpr int threads = warps_per_cta * 32;
  static constexpr std::size_t shared_bytes = 0;
  static constexpr int phases = S == schedule::whole ? 1 : 3;
  ORDO_HD static unsigned head_ctas(const problem& p) { return unsigned((p.n_heads + warps_per_cta - 1) / warps_per_cta); }
  /// CTAs of a pass: (head group, row) for the whole pass and the combine, × every chunk of the
  /// longest list for the split's chunk passes.
  static unsigned grid(const problem& p, int phase) {
    const unsigned heads = head_ctas(p) * unsigned(p.rows);
    if (S == schedule::whole || phase == 2) return heads;
    return heads * unsigned(chunks_of<Order>(p.max_listed));
  }

#if defined(ORDO_DEVICE_PASS)
  /// z_j on the device for each entry of a walk group: this lane's partial dots (an absent
  /// entry dots q with itself so every load is unconditional and the group's loads overlap; its
  /// value is dropped), then the Order's butterfly per entry, ×τ. The entries' presence is the
  /// same on every lane, so the shuffles stay full-warp.
  struct warp_logit {
    const problem& p;
    int lane;
    ORDO_DEVICE void operator()(const float* q, const float* const (&rows)[walk_group], float (&z)[walk_group]) const {
      float part[walk_group];
#pragma unroll
      for (int u = 0; u < walk_group; ++u) part[u] = lane_dot<Order>(q, rows[u] ? rows[u] : q, p.head_dim, lane);
#pragma unroll
      for (int u = 0; u < walk_group; ++u) {
        order::warp_lanes v{part[u]};
        order::combine<typename Order::dot_order>(v);
        z[u] = logit(v.v, p.scale);
      }
    }
  };

  /// acc_c += e·row on this lane's dims.
  struct lane_accumulate {
    float (&acc)[dims_per_lane];
    int n, lane;
    ORDO_DEVICE void operator()(float e, const float* row) const { accumulate_lane(acc, e, row, n, lane); }
  };

  /// This warp's (row, head) and, in the chunk passes, chunk; false when the warp is past the
  /// heads (whole warps leave together). CTA b covers head group b % head_ctas of row
  /// (b / head_ctas) % rows, chunk b / (head_ctas · rows).
  ORDO_DEVICE static bool warp_head(const problem& p, int& i, int& h, int& c, int& lane) {
    const int groups = int(head_ctas(p)), b = int(blockIdx.x);
    lane = int(threadIdx.x) % order::lanes;
    h = (b % groups) * warps_per_cta + int(threadIdx.x) / order::lanes;
    i = (b / groups) % p.rows;
    c = b / (groups * p.rows);
    return h < p.n_heads;
  }

  /// out = acc / den on this lane's dims.
  ORDO_DEVICE static void write_lane(const problem& p, int i, int h, int lane, const float (&acc)[dims_per_lane], float den) {
    float* out = out_head(p, i, h);
#pragma unroll
    for (int k = 0; k < dims_per_lane; ++k) {
      const int d = lane + order::lanes * k;
      if (d < p.head_dim) out[d] = acc[k] / den;
    }
  }

  template <int Phase>
  ORDO_DEVICE static void run_phase(const problem& p, std::byte*) {
    int i, h, c, lane;
    if (!warp_head(p, i, h, c, lane)) return;
    const warp_logit z{p, lane};
    if constexpr (S == schedule::whole) {
      float m = p.sinks[h];
#pragma unroll 1
      for (int k = 0; k < row_chunks<Order>(p, i); ++k) m = larger(m, chunk_max<Order, V>(p, i, h, k, z));
      float den = weight_of(p.sinks[h], m);
      float acc[dims_per_lane], acc_c[dims_per_lane];
#pragma unroll
      for (int k = 0; k < dims_per_lane; ++k) acc[k] = 0.0f;
#pragma unroll 1
      for (int k = 0; k < row_chunks<Order>(p, i); ++k) {
#pragma unroll
        for (int t = 0; t < dims_per_lane; ++t) acc_c[t] = 0.0f;
        den = den + chunk_sums<Order, V>(p, i, h, k, m, z, lane_accumulate{acc_c, p.head_dim, lane});
#pragma unroll
        for (int t = 0; t < dims_per_lane; ++t) acc[t] = acc[t] + acc_c[t];
      }
      write_lane(p, i, h, lane, acc, den);
    } else if constexpr (Phase == 0) {  // chunk c's max into its slot
      if (c >= row_chunks<Order>(p, i)) return;
      const float m = chunk_max<Order, V>(p, i, h, c, z);
      if (lane == 0) workspace_slot<Order>(p, i, h, c)[0] = m;
    } else if constexpr (Phase == 1) {  // chunk c's den_c and acc_c into its slot
      if (c >= row_chunks<Order>(p, i)) return;
      const float m = gathered_max<Order>(p, i, h);
      float acc_c[dims_per_lane];
#pragma unroll
      for (int k = 0; k < dims_per_lane; ++k) acc_c[k] = 0.0f;
      const float den = chunk_sums<Order, V>(p, i, h, c, m, z, lane_accumulate{acc_c, p.head_dim, lane});
      float* slot = workspace_slot<Order>(p, i, h, c);
      if (lane == 0) slot[1] = den;
#pragma unroll
      for (int k = 0; k < dims_per_lane; ++k) {
        const int d = lane + order::lanes * k;
        if (d < p.head_dim) slot[2 + d] = acc_c[k];
      }
    } else {  // den and acc over the chunks in chunk order, then the output
      float den = weight_of(p.sinks[h], gathered_max<Order>(p, i, h));
      float acc[dims_per_lane];
#pragma unroll
      for (int k = 0; k < dims_per_lane; ++k) acc[k] = 0.0f;
#pragma unroll 1
      for (int k = 0; k < row_chunks<Order>(p, i); ++k) {
        const float* slot = workspace_slot<Order>(p, i, h, k);
        den = den + slot[1];
#pragma unroll
        for (int t = 0; t < dims_per_lane; ++t) {
          const int d = lane + order::lanes * t;
          if (d < p.head_dim) acc[t] = acc[t] + slot[2 + d];
        }
      }
      write_lane(p, i, h, lane, acc, den);
    }
  }
#endif
};

}  // namespace ordo::ops::attention
