/// The indexer kernel of spec (R, Order, S) for the generic GPU entry and CPU executor.
///
/// CPU executor: work item = one row (lanes = 1): the prepare phase per head, every visible
/// key's score with the host dot (lanes 0..31's partials, then order::combine on host_lanes, the
/// device's butterfly), then the selection (select_cpu.hpp: each round the 32 lanes propose in
/// turn).
///
/// GPU: dependent passes (ops/gpu_entry.hpp's phases): prepare (a thread per (row, head) runs the
/// head's Hadamard + FP4 into the workspace), scores (a logical warp per (row, key): each head's
/// dot is the lanes' partials combined by the Order's xor butterfly; the head sum runs on every
/// lane in the same order), then the selection: a warp per row (flat), or a warp per (row, block)
/// for the block survivors and a warp per row for the rounds over them (hierarchical), or a CTA
/// per row (radix: select_radix.hpp's passes with shared-memory histograms, then the ordered
/// compaction by block prefix sums). A round combines the lanes' proposals with an xor butterfly
/// under ranks_before — exact in any tree, a strict total order; the radix counts are integers.
/// Nothing depends on R, the grid or the device.
#pragma once
#include <algorithm>
#include <cstddef>

#include "ordo/ops/indexer/body.hpp"
#include "ordo/ops/indexer/select_cpu.hpp"
#include "ordo/ops/indexer/select_radix.hpp"
#include "ordo/order/combine.hpp"
#if defined(ORDO_DEVICE_PASS)
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/numeric/conversions.hpp"
#endif

namespace ordo::ops::indexer {

inline constexpr int warps_per_cta = 4;

/// Radix: ids per thread per chunk of the ordered compaction, and the CTA's shared memory.
inline constexpr int radix_items = 4;
struct radix_shared {
  int hist[radix_buckets];           // this pass's counts by digit
  radix_threshold found;             // thread 0's descent, for every thread
  int totals[2][warps_per_cta];      // the block scan's warp totals, by chunk parity
};

#if defined(ORDO_DEVICE_PASS)
/// The best of the 32 lanes' candidates, on every lane.
ORDO_DEVICE ORDO_FORCEINLINE candidate warp_best(candidate best) {
#pragma unroll
  for (int offset = 16; offset >= 1; offset /= 2) {
    // The id travels as the bits of a float: a shuffle moves registers, it does not round.
    const candidate other{gpu::shfl_xor(best.key, offset),
                          int(numeric::detail::bits_of(gpu::shfl_xor(numeric::detail::float_of(std::uint32_t(best.id)), offset)))};
    if (ranks_before(other, best)) best = other;
  }
  return best;
}

/// The k-th ranked member of a set (empty when count <= k), on every lane.
ORDO_DEVICE ORDO_FORCEINLINE candidate warp_kth(const float* scores, const std::int32_t* ids, int count, int k, int lane) {
  if (count <= k) return no_candidate();
  candidate prev = no_candidate();
#pragma unroll 1
  for (int r = 0; r < k; ++r) prev = warp_best(lane_next(scores, ids, count, lane, prev));
  return prev;
}

ORDO_DEVICE ORDO_FORCEINLINE void warp_memory_sync() {
#if defined(ORDO_GPU_CUDA)
  __syncwarp();
#else
  __threadfence_block();  // a wavefront runs in lockstep; the fence orders its memory
#endif
}

template <class Order>
struct warp_dot {
  const problem& p;
  int lane;
  ORDO_DEVICE float operator()(const float* q, const float* key) const {
    order::warp_lanes v{lane_dot<Order>(q, key, p.head_dim, lane)};
    order::combine<typename Order::dot_order>(v);
    return v.v;
  }
};

/// Flat: the rounds over row i's visible keys, then lane 0 writes the selection.
ORDO_DEVICE ORDO_FORCEINLINE void select_flat_row(const problem& p, int i, int lane) {
  const float* scores = row_scores(p, i);
  const int n = p.n_visible[i];
  const candidate kth = warp_kth(scores, nullptr, n, p.top_k, lane);
  if (lane == 0) p.n_selected[i] = write_at_or_before(scores, nullptr, n, kth, p.selected + std::size_t(i) * p.sel_stride);
}

/// Hierarchical stage 1: block b of row i keeps its survivors (ascending ids) in its top_k slots
/// of the workspace, −1 after them.
ORDO_DEVICE ORDO_FORCEINLINE void block_survivors(const problem& p, int i, int b, int lane) {
  const int b0 = b * hierarchical_block, n_visible = p.n_visible[i];
  if (b0 >= n_visible) return;
  const int n = n_visible - b0 < hierarchical_block ? n_visible - b0 : hierarchical_block;
  const float* scores = row_scores(p, i) + b0;
  const candidate kth = warp_kth(scores, nullptr, n, p.top_k, lane);
  if (lane == 0) {
    std::int32_t* out = p.survivors + std::size_t(i) * p.survivor_stride + std::size_t(b) * std::size_t(p.top_k);
    const int kept = write_at_or_before(scores, nullptr, n, kth, out);
    for (int t = 0; t < kept; ++t) out[t] += b0;
    for (int t = kept; t < p.top_k; ++t) out[t] = -1;
  }
}

/// Hierarchical stage 2: lane 0 compacts row i's survivors, then the rounds over them.
ORDO_DEVICE ORDO_FORCEINLINE void select_survivors_row(const problem& p, int i, int lane) {
  const int n_visible = p.n_visible[i], blocks = (n_visible + hierarchical_block - 1) / hierarchical_block;
  std::int32_t* list = p.survivors + std::size_t(i) * p.survivor_stride;
  int m = 0;  // every lane counts, so every lane knows the compacted length
  for (int t = 0; t < blocks * p.top_k; ++t) m += list[t] >= 0;
  warp_memory_sync();
  if (lane == 0) {
    int w = 0;
    for (int t = 0; t < blocks * p.top_k; ++t)
      if (list[t] >= 0) list[w++] = list[t];
  }
  warp_memory_sync();
  const float* scores = row_scores(p, i);
  const candidate kth = warp_kth(scores, list, m, p.top_k, lane);
  if (lane == 0) p.n_selected[i] = write_at_or_before(scores, list, m, kth, p.selected + std::size_t(i) * p.sel_stride);
}

/// The sum of v over lanes 0..lane of the logical warp (integers: exact in any order).
ORDO_DEVICE ORDO_FORCEINLINE int warp_inclusive_sum(int v, int lane) {
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const int from = gpu::shfl_i32(v, lane >= offset ? lane - offset : lane);
    if (lane >= offset) v += from;
  }
  return v;
}

/// The exclusive prefix sum of v over the CTA's threads (every thread calls it), and the total;
/// `totals` alternate by chunk so one barrier per chunk suffices.
ORDO_DEVICE ORDO_FORCEINLINE int block_exclusive_sum(int v, int* totals, int& total) {
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  const int inclusive = warp_inclusive_sum(v, lane);
  if (lane == 31) totals[warp] = inclusive;
  __syncthreads();
  int before = 0;
  total = 0;
#pragma unroll
  for (int w = 0; w < warps_per_cta; ++w) {
    before += w < warp ? totals[w] : 0;
    total += totals[w];
  }
  return before + inclusive - v;
}

/// Radix: one pass's descent by warp 0 (lanes = threadIdx.x 0..31): lane l sums digits
/// 255−8l … 248−8l, a prefix sum over the lanes finds the one lane whose digits hold what is still
/// needed, and that lane walks its 8 digits as radix_descend walks all 256 (the same digit).
ORDO_DEVICE ORDO_FORCEINLINE void radix_descend_warp(radix_shared& sh, radix_threshold t, int pass, int lane) {
  constexpr int per_lane = radix_buckets / 32;
  static_assert(per_lane * 32 == radix_buckets);
  const int hi = radix_buckets - 1 - per_lane * lane, lo = hi - (per_lane - 1);
  int group = 0;
#pragma unroll
  for (int d = hi; d >= lo; --d) group += sh.hist[d];
  const int inclusive = warp_inclusive_sum(group, lane);
  const int before = inclusive - group;
  if (before < t.need && t.need <= inclusive) {
    t.need -= before;
    radix_narrow(sh.hist, t, pass, radix_walk(sh.hist, t.need, hi, lo));
    sh.found = t;
  }
}

/// Radix: the CTA selects row i (every thread calls it; every loop and barrier is uniform).
ORDO_DEVICE ORDO_FORCEINLINE void select_radix_row(const problem& p, int i, radix_shared& sh) {
  constexpr int threads = warps_per_cta * 32;
  const int tid = int(threadIdx.x), n = p.n_visible[i], k = p.top_k;
  const float* scores = row_scores(p, i);
  std::int32_t* out = p.selected + std::size_t(i) * p.sel_stride;
  if (n <= k) {  // everything is selected
    for (int c = tid; c < n; c += threads) out[c] = c;
    if (tid == 0) p.n_selected[i] = n;
    return;
  }
  radix_threshold t = radix_start(n, k);
#pragma unroll 1
  for (int pass = 0; pass < radix_passes; ++pass) {
    for (int b = tid; b < radix_buckets; b += threads) sh.hist[b] = 0;
    __syncthreads();
#pragma unroll 1
    for (int base = 0; base < n; base += threads * radix_items) {
      // The items' loads first (each load's latency is not waited for one at a time), coalesced.
      std::uint32_t keys[radix_items];
#pragma unroll
      for (int j = 0; j < radix_items; ++j) {
        const int c = base + j * threads + tid;
        keys[j] = c < n ? rank_key(scores[c]) : 0u;
      }
#pragma unroll
      for (int j = 0; j < radix_items; ++j)
        if (base + j * threads + tid < n && radix_in_bucket(keys[j], t))
          atomicAdd(&sh.hist[radix_digit(keys[j], pass)], 1);  // integer counts: any order
    }
    __syncthreads();
    if (tid < 32) radix_descend_warp(sh, t, pass, tid);
    __syncthreads();
    t = sh.found;
  }
  // Ordered compaction: thread tid walks ids base + tid·items … in order, starting from the counts
  // (above T, equal to T) of every id before its first, a block prefix sum of both packed in one
  // int (a chunk holds threads·items < 2^16 ids).
  int above_base = 0, equal_base = 0;
#pragma unroll 1
  for (int base = 0, chunk = 0; base < n && above_base + radix_ties_taken(equal_base, t) < k;
       base += threads * radix_items, ++chunk) {
    const int c0 = base + tid * radix_items;
    std::uint32_t keys[radix_items];
    int above = 0, equal = 0;
#pragma unroll
    for (int j = 0; j < radix_items; ++j) {
      keys[j] = c0 + j < n ? rank_key(scores[c0 + j]) : 0u;
      above += c0 + j < n && keys[j] > t.prefix;
      equal += c0 + j < n && keys[j] == t.prefix;
    }
    int total = 0;
    const int before = block_exclusive_sum(above | (equal << 16), sh.totals[chunk & 1], total);
    above = above_base + (before & 0xffff), equal = equal_base + (before >> 16);
#pragma unroll
    for (int j = 0; j < radix_items; ++j) {
      if (c0 + j >= n) break;
      const int slot = radix_slot(keys[j], above, equal, t);
      if (slot >= 0 && slot < k) out[slot] = c0 + j;
    }
    above_base += total & 0xffff, equal_base += total >> 16;
  }
  if (tid == 0) p.n_selected[i] = k;
}
#endif

template <int R, class Order, selector S>
struct kernel {
  using problem = indexer::problem;
  static constexpr bool can_run(const problem& p) { return fits<R, S>(p); }

  // ---- CPU executor: work item = row
  static constexpr int lanes = 1;
  struct lane_state {};
  static long work_items(const problem& p) { return p.rows; }
  static void lane_phase(const problem& p, long row, int, lane_state&) {
    const int i = int(row);
    const auto dot = [&p](const float* q, const float* key) {
      order::host_lanes partial{};
      for (int lane = 0; lane < order::lanes; ++lane) partial.v[lane] = lane_dot<Order>(q, key, p.head_dim, lane);
      return order::combine<typename Order::dot_order>(partial);
    };
    for (int h = 0; h < p.n_heads; ++h) prepare_head(p, i, h);
    float* scores = p.scores + std::size_t(i) * p.score_stride;
    const int n = p.n_visible[i];
    for (int c = 0; c < n; ++c) scores[c] = key_score(p, i, c, dot);
    const auto chosen = S == selector::flat           ? select_flat(scores, n, p.top_k)
                        : S == selector::hierarchical ? select_hierarchical(scores, n, p.top_k, hierarchical_block)
                                                      : select_radix(scores, n, p.top_k);
    std::copy(chosen.begin(), chosen.end(), p.selected + std::size_t(i) * p.sel_stride);
    p.n_selected[i] = std::int32_t(chosen.size());
  }
  static void finish(const problem&, long, const lane_state (&)[lanes]) {}

  // ---- GPU entry: prepare, scores, then the selection's passes (flat, radix: 1, hierarchical: 2)
  static constexpr int threads = warps_per_cta * 32;
  static constexpr std::size_t shared_bytes = S == selector::radix ? sizeof(radix_shared) : 0;
  static constexpr int phases = S == selector::hierarchical ? 4 : 3;
  ORDO_HD static unsigned blocks_of(const problem& p) { return unsigned((p.n_keys + hierarchical_block - 1) / hierarchical_block); }
  static unsigned grid(const problem& p, int phase) {
    const unsigned rows = unsigned(p.rows), warps = unsigned(warps_per_cta);
    switch (phase) {
      case 0: return rows * unsigned((p.n_heads + threads - 1) / threads);  // a thread per (row, head)
      case 1: return p.n_keys > 0 ? rows * ((unsigned(p.n_keys) + warps - 1) / warps) : 0;  // a warp per (row, key)
      case 2:
        if (S == selector::flat) return (rows + warps - 1) / warps;  // a warp per row
        if (S == selector::radix) return rows;                         // a CTA per row
        return p.n_keys > 0 ? (rows * blocks_of(p) + warps - 1) / warps : 0;  // a warp per (row, block)
      default: return (rows + warps - 1) / warps;  // a warp per row
    }
  }

#if defined(ORDO_DEVICE_PASS)
  template <int Phase>
  ORDO_DEVICE static void run_phase(const problem& p, std::byte* shared) {
    (void)shared;  // the radix selection's histograms only
    const int lane = int(threadIdx.x) % 32, warp = int(blockIdx.x) * warps_per_cta + int(threadIdx.x) / 32;
    if constexpr (Phase == 0) {
      const int groups = (p.n_heads + threads - 1) / threads;
      const int i = int(blockIdx.x) / groups, h = (int(blockIdx.x) % groups) * threads + int(threadIdx.x);
      if (h < p.n_heads && i < p.rows) prepare_head(p, i, h);
    } else if constexpr (Phase == 1) {
      const int per_row = (p.n_keys + warps_per_cta - 1) / warps_per_cta;
      const int i = int(blockIdx.x) / per_row, c = (int(blockIdx.x) % per_row) * warps_per_cta + int(threadIdx.x) / 32;
      if (i >= p.rows || c >= p.n_visible[i]) return;  // whole warps leave together
      const float s = key_score(p, i, c, warp_dot<Order>{p, lane});
      if (lane == 0) p.scores[std::size_t(i) * p.score_stride + std::size_t(c)] = s;
    } else if constexpr (Phase == 2 && S == selector::flat) {
      if (warp < p.rows) select_flat_row(p, warp, lane);
    } else if constexpr (Phase == 2 && S == selector::radix) {
      select_radix_row(p, int(blockIdx.x), *reinterpret_cast<radix_shared*>(shared));
    } else if constexpr (Phase == 2) {
      const int blocks = int(blocks_of(p));
      if (warp < p.rows * blocks) block_survivors(p, warp / blocks, warp % blocks, lane);
    } else {
      if (warp < p.rows) select_survivors_row(p, warp, lane);
    }
  }
#endif
};

}  // namespace ordo::ops::indexer
