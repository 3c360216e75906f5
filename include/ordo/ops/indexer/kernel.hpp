/// The indexer GPU kernels (HIP and CUDA from one source): prepare (a thread per (row, head) runs
/// the head's Hadamard + FP4 into the workspace), scores (a logical warp per (row, key): each
/// head's dot is the lanes' partials combined by the Order's xor butterfly; the head sum runs on
/// every lane in the same order), then the selection: one warp per row (flat), or a warp per
/// (row, block) for the block survivors and one per row for the rounds over them (hierarchical).
/// A round combines the lanes' proposals with an xor butterfly under ranks_before — exact in any
/// tree, a strict total order. Nothing depends on R, the grid or the device. Every kernel is a
/// template (on R where nothing else varies), so a header included by several TUs stays one
/// definition.
#pragma once
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/order/combine.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/ops/indexer/body.hpp"
#include "ordo/ops/indexer/indexer.hpp"

namespace ordo::ops::indexer {

template <int R, selector S>
constexpr bool can_run(const problem& p) {
  return valid<R, S>(p);
}

#if defined(ORDO_GPU)
inline constexpr int warps_per_cta = 4;

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
#endif

template <int R>
ORDO_GLOBAL void __launch_bounds__(64) indexer_prepare_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int h = int(blockIdx.x) * 64 + int(threadIdx.x), i = int(blockIdx.y);
  if (h < p.n_heads && i < p.rows) prepare_head(p, i, h);
#else
  (void)p;
#endif
}

template <class Order>
ORDO_GLOBAL void __launch_bounds__(warps_per_cta * 32) indexer_scores_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int lane = int(threadIdx.x) % 32, c = int(blockIdx.x) * warps_per_cta + int(threadIdx.x) / 32, i = int(blockIdx.y);
  if (i >= p.rows || c >= p.n_visible[i]) return;  // whole warps leave together
  const float s = key_score(p, i, c, warp_dot<Order>{p, lane});
  if (lane == 0) p.scores[std::size_t(i) * p.score_stride + std::size_t(c)] = s;
#else
  (void)p;
#endif
}

/// Flat: the rounds over row blockIdx.x's visible keys, then lane 0 writes the selection.
template <int R>
ORDO_GLOBAL void __launch_bounds__(32) indexer_select_flat_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int lane = int(threadIdx.x), i = int(blockIdx.x);
  const float* scores = row_scores(p, i);
  const int n = p.n_visible[i];
  const candidate kth = warp_kth(scores, nullptr, n, p.top_k, lane);
  if (lane == 0) p.n_selected[i] = write_at_or_before(scores, nullptr, n, kth, p.selected + std::size_t(i) * p.sel_stride);
#else
  (void)p;
#endif
}

/// Hierarchical stage 1: block blockIdx.x of row blockIdx.y keeps its survivors (ascending ids)
/// in its top_k slots of the workspace, −1 after them.
template <int R>
ORDO_GLOBAL void __launch_bounds__(32) indexer_block_survivors_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int lane = int(threadIdx.x), b = int(blockIdx.x), i = int(blockIdx.y);
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
#else
  (void)p;
#endif
}

/// Hierarchical stage 2: lane 0 compacts row blockIdx.x's survivors, then the rounds over them.
template <int R>
ORDO_GLOBAL void __launch_bounds__(32) indexer_select_survivors_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int lane = int(threadIdx.x), i = int(blockIdx.x);
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
#else
  (void)p;
#endif
}

template <int R, class Order, selector S>
void launch_gpu(const problem& p, gpu::stream_t stream) {
  const auto s = gpu::native(stream);
  indexer_prepare_kernel<R><<<dim3(unsigned((p.n_heads + 63) / 64), unsigned(p.rows)), 64, 0, s>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
  if (p.n_keys > 0) {
    indexer_scores_kernel<Order><<<dim3(unsigned((p.n_keys + warps_per_cta - 1) / warps_per_cta), unsigned(p.rows)),
                                   warps_per_cta * 32, 0, s>>>(p);
    ORDO_GPU_CHECK_LAUNCH();
  }
  if constexpr (S == selector::flat) {
    indexer_select_flat_kernel<R><<<unsigned(p.rows), 32, 0, s>>>(p);
  } else {
    if (p.n_keys > 0) {
      const unsigned blocks = unsigned((p.n_keys + hierarchical_block - 1) / hierarchical_block);
      indexer_block_survivors_kernel<R><<<dim3(blocks, unsigned(p.rows)), 32, 0, s>>>(p);
      ORDO_GPU_CHECK_LAUNCH();
    }
    indexer_select_survivors_kernel<R><<<unsigned(p.rows), 32, 0, s>>>(p);
  }
  ORDO_GPU_CHECK_LAUNCH();
}

using launcher = void (*)(const problem&, gpu::stream_t);

/// The launcher of every spec in op::for_each_spec's order (entry i is cpu_entries()[i]'s spec).
inline std::vector<launcher> gpu_launchers() {
  std::vector<launcher> v;
  op::for_each_spec([&]<int R, class Order, selector S>() { v.push_back(&launch_gpu<R, Order, S>); });
  return v;
}

/// gpu_launchers() built once, defined in kernels/indexer.cpp (GPU builds only).
const std::vector<launcher>& gpu_launcher_table();
#endif

}  // namespace ordo::ops::indexer
