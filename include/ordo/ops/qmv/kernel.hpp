/// The qmv kernel of spec (F, R, Order) under a Policy, for the generic GPU entry
/// (ops/gpu_entry.hpp) and CPU executor (ops/cpu_executor.hpp).
///
/// GPU: a CTA of Policy::warps logical warps; each warp owns one weight row at a time, copies a
/// window of that row's blocks into shared memory with the widest aligned loads it can (16 B),
/// then every lane runs accumulate_window and the warp combines with order::combine. The window
/// size is a Policy choice that cannot change bits: a window is a whole number of 32-block groups
/// and each lane still visits its own blocks in ascending order. K-quant formats take the
/// chunk-cooperative arrangement and float formats the padded float window (float_window.hpp),
/// both the same bits.
/// CPU: one work item per weight row; lane l runs accumulate_window over the whole row from
/// global memory, then the row's 32 lane values are combined by the same order::combine.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ordo/ops/qmv/body.hpp"
#include "ordo/ops/qmv/float_window.hpp"
#if defined(ORDO_GPU)
#include <type_traits>

#include "ordo/ops/qmv/int8_dot_streaming.hpp"
#include "ordo/ops/qmv/int8_mma_tree.hpp"
#include "ordo/ops/qmv/int_chunk_cooperative.hpp"
#endif

namespace ordo::ops::qmv {

/// Dot blocks per shared-memory window: as many 32-block groups as fit Policy::window_bytes (>= 1).
template <quant::quant_format F, class Policy>
inline constexpr int window_blocks = [] {
  const int groups = int(Policy::window_bytes / (32 * dot_bytes<F>));
  return 32 * (groups > 0 ? groups : 1);
}();

template <quant::quant_format F, class Policy>
inline constexpr std::size_t window_stage_bytes = std::size_t(window_blocks<F, Policy>) * dot_bytes<F>;

template <quant::quant_format F, int R, class Order, class Policy>
struct kernel {
  using problem = qmv::problem;
  static constexpr bool can_run(const problem& p) { return fits<F, R>(p); }

  // ---- CPU executor: work item = weight row, 32 lanes
  static constexpr int lanes = order::lanes;
  struct lane_state {
    float acc[R];
  };
  static long work_items(const problem& p) { return p.n_out; }
  static void lane_phase(const problem& p, long row, int lane, lane_state& s) {
    for (int i = 0; i < R; ++i) s.acc[i] = 0.0f;
    const int nb = p.k / F::dot_elems;
    accumulate_window<F, Order, R>(p.weights + std::size_t(row) * p.weight_row_bytes, 0, nb, nb, lane, p, s.acc);
  }
  static void finish(const problem& p, long row, const lane_state (&s)[lanes]) {
    for (int i = 0; i < p.rows; ++i) {
      order::host_lanes v;
      for (int l = 0; l < lanes; ++l) v.v[l] = s[l].acc[i];
      p.out[std::size_t(i) * p.out_stride + std::size_t(row)] = combine_row<Order>(v);
    }
  }

  // ---- GPU entry: a CTA of Policy::warps warps, one weight row per warp at a time
  static constexpr int threads = Policy::warps * 32;
  static constexpr std::size_t generic_shared_bytes = std::size_t(Policy::warps) * window_stage_bytes<F, Policy>;
  static constexpr std::size_t shared_bytes = [] {
    if constexpr (float_window::applies<F>)
      return float_window::shared_bytes<F, Policy> > generic_shared_bytes ? float_window::shared_bytes<F, Policy>
                                                                          : generic_shared_bytes;
    return generic_shared_bytes;
  }();
  static unsigned grid(const problem& p) {
    if constexpr (float_window::applies<F>)
      if (float_window::row_mode(p)) return unsigned(p.n_out);  // a CTA per row (float_window.hpp)
    return unsigned((p.n_out + Policy::warps - 1) / Policy::warps);
  }

#if defined(ORDO_GPU)
  /// The faster arrangements of the same lane-strided bits on CUDA: from mma_min_rows of Q8_0 the mma
  /// kernel (ops/qmv/int8_mma_tree.hpp), else the dp4a streaming kernel for Q8_0/MXFP4
  /// (ops/qmv/int8_dot_streaming.hpp); false where neither applies.
  static bool try_specialized_launch([[maybe_unused]] const problem& p, [[maybe_unused]] gpu::stream_t stream) {
#if defined(ORDO_GPU_CUDA)
    if constexpr (std::is_same_v<Order, order::lane_strided> && int8_mma_tree::applies<F, R, Policy>)
      if (int8_mma_tree::try_launch<R, Policy>(p, stream)) return true;
    if constexpr (std::is_same_v<Order, order::lane_strided> && has_int8_decoder<F>)
      return int8_dot_streaming::try_launch<int8_decoder_at<F, R>, R, Policy>(p, stream);
#endif
    return false;
  }
#endif

#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte* shared) {
    constexpr int warps = Policy::warps;
    if constexpr (int_chunk_cooperative::applies<F, Order>) {
      // K-quant blocks: the chunk-cooperative arrangement (same bits); the window path below
      // remains for rows it cannot read with 32-bit loads.
      if (int_chunk_cooperative::aligned(p)) return int_chunk_cooperative::run_cta<F, R, Order>(p, warps);
    }
    if constexpr (float_window::applies<F>) {
      // Float weights: padded, conflict-free staging of weights and activations (same bits); the
      // window path below remains for rows it cannot read as 32-bit words.
      if (float_window::aligned(p)) return float_window::run_cta<F, R, Order, Policy>(p, shared);
    }
    constexpr int wb = window_blocks<F, Policy>;
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    std::byte* stage = shared + warp * window_stage_bytes<F, Policy>;
    const int nb = p.k / F::dot_elems;
    // The loops are uniform across the CTA (a warp past the last row idles) so __syncthreads is safe.
    for (int base = int(blockIdx.x) * warps; base < p.n_out; base += int(gridDim.x) * warps) {
      const int row = base + warp;
      const bool live = row < p.n_out;
      const std::byte* wrow = p.weights + std::size_t(live ? row : 0) * p.weight_row_bytes;
      float acc[R];
#pragma unroll
      for (int i = 0; i < R; ++i) acc[i] = 0.0f;
      for (int w0 = 0; w0 < nb; w0 += wb) {
        const int w1 = w0 + wb < nb ? w0 + wb : nb;
        if (live) copy_window(stage, wrow + std::size_t(w0) * dot_bytes<F>, std::size_t(w1 - w0) * dot_bytes<F>, lane);
        __syncthreads();
        if (live) accumulate_window<F, Order, R>(stage, w0, w1, nb, lane, p, acc);
        __syncthreads();
      }
      if (live) {
#pragma unroll
        for (int i = 0; i < R; ++i) {
          if (i < p.rows) {
            order::warp_lanes v{acc[i]};
            const float sum = combine_row<Order>(v);
            if (lane == 0) p.out[std::size_t(i) * p.out_stride + row] = sum;
          }
        }
      }
    }
  }
#endif
};

}  // namespace ordo::ops::qmv
