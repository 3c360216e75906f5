/// The rmsnorm kernel of spec (R, Order, W, E) for the generic GPU entry (ops/gpu_entry.hpp) and
/// CPU executor (ops/cpu_executor.hpp). Work item = one head of every live row.
/// GPU: a CTA of policy::warps logical warps, one head per warp; the warp runs the body for all
/// live rows of the pass (the tier), combines each row's partials with order::combine and writes
/// the head. CPU: lane l accumulates its elements of the head for every row; finish combines the
/// 32 partials by the same order::combine and runs the write phases lane after lane. Each lane
/// keeps R accumulators; nothing about the split or the combine depends on R, the grid or the device.
#pragma once
#include <cstddef>

#include "ordo/ops/rmsnorm/body.hpp"
#include "ordo/order/combine.hpp"

namespace ordo::ops::rmsnorm {

/// Launch shape (cannot change bits: a head is one warp's whole work).
struct policy {
  static constexpr int warps = 4;
};

template <int R, class Order, weighting W, epilogue E, class Policy>
struct kernel {
  using problem = rmsnorm::problem;
  static constexpr bool can_run(const problem& p) { return fits<R, E>(p); }

  // ---- CPU executor: work item = head, 32 lanes
  static constexpr int lanes = order::lanes;
  struct lane_state {
    float acc[R];
  };
  static long work_items(const problem& p) { return p.n_heads; }
  static void lane_phase(const problem& p, long h, int lane, lane_state& s) {
    for (int i = 0; i < R; ++i) s.acc[i] = 0.0f;
    accumulate_squares<Order, R>(p, int(h), lane, s.acc);
  }
  static void finish(const problem& p, long h, const lane_state (&s)[lanes]) {
    for (int i = 0; i < p.rows; ++i) {
      order::host_lanes v;
      for (int l = 0; l < lanes; ++l) v.v[l] = s[l].acc[i];
      const float inv = inverse_rms(order::combine<Order>(v), p.head_dim, p.eps);
      for (int lane = 0; lane < lanes; ++lane) write_head<W>(p, i, int(h), lane, inv);
      if constexpr (E == epilogue::q8_32)
        for (int lane = 0; lane < lanes; ++lane) write_q8_head(p, i, int(h), lane);
    }
  }

  // ---- GPU entry: one head per warp
  static constexpr int threads = Policy::warps * 32;
  static constexpr std::size_t shared_bytes = 0;
  static unsigned grid(const problem& p) { return unsigned((p.n_heads + Policy::warps - 1) / Policy::warps); }
#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte*) {
    const int lane = int(threadIdx.x) % 32;
    const int h = int(blockIdx.x) * Policy::warps + int(threadIdx.x) / 32;
    if (h >= p.n_heads) return;  // whole warps leave together: the shuffles below stay full-warp
    float acc[R];
#pragma unroll
    for (int i = 0; i < R; ++i) acc[i] = 0.0f;
    accumulate_squares<Order, R>(p, h, lane, acc);
#pragma unroll 1
    for (int i = 0; i < p.rows; ++i) {
      float v = acc[0];
#pragma unroll
      for (int j = 1; j < R; ++j) v = i == j ? acc[j] : v;  // select without dynamic register indexing
      order::warp_lanes lanes_value{v};
      write_head<W>(p, i, h, lane, inverse_rms(order::combine<Order>(lanes_value), p.head_dim, p.eps));
      if constexpr (E == epilogue::q8_32) {
        // The head's f32 outputs must be visible to the lanes that quantize them.
#if defined(ORDO_GPU_CUDA)
        __syncwarp();
#else
        __threadfence_block();  // a wavefront runs in lockstep; the fence orders its memory
#endif
        write_q8_head(p, i, h, lane);
      }
    }
  }
#endif
};

}  // namespace ordo::ops::rmsnorm
