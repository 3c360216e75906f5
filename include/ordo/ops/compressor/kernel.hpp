/// The compressor kernels for the generic GPU entry and CPU executor (HIP and CUDA from one
/// source). Nothing depends on the grid or the device.
///   store (R, Ra): CPU work item = row (lanes = 1), columns ascending. GPU: element-parallel
///     over the width (CTAs of `threads` threads, thread j stores columns j, j + grid·threads, …),
///     rows rolled; every value is computed alone, so the split cannot change a bit.
///   emit (Ra, Order, E): one logical warp runs the four phases of body.hpp. CPU: work item = the
///     emission (lanes = 1): each phase for lanes 0..31 in turn, the norm's 32 partials combined
///     by order::combine<Order> on host_lanes, the device's butterfly. GPU: one CTA of one warp,
///     a warp barrier between phases (each phase reads only what the previous one wrote), the
///     partials combined by the Order's xor butterfly on warp_lanes.
#pragma once
#include <cstddef>

#include "ordo/ops/compressor/body.hpp"
#include "ordo/ops/compressor/problem.hpp"
#include "ordo/ops/rmsnorm/body.hpp"
#include "ordo/order/combine.hpp"

namespace ordo::ops::compressor {

#if defined(ORDO_DEVICE_PASS)
/// Orders one phase's global writes before the next phase's reads within the warp.
ORDO_DEVICE ORDO_FORCEINLINE void warp_barrier() {
#if defined(ORDO_GPU_CUDA)
  __syncwarp();
#else
  __threadfence_block();  // a wavefront runs in lockstep; the fence orders its memory
#endif
}
#endif

template <int R, ratio Ra>
struct store_kernel {
  using problem = store_problem;
  static constexpr bool can_run(const problem& p) { return fits<R, Ra>(p); }

  // ---- CPU executor: work item = row
  static constexpr int lanes = 1;
  struct lane_state {};
  static long work_items(const problem& p) { return p.rows; }
  static void lane_phase(const problem& p, long row, int, lane_state&) { write_store_row<Ra>(p, int(row), 0, 1); }
  static void finish(const problem&, long, const lane_state (&)[lanes]) {}

  // ---- GPU entry: element-parallel over the width, rows rolled
  static constexpr int threads = 256;
  static constexpr std::size_t shared_bytes = 0;
  static unsigned grid(const problem& p) { return unsigned((p.width + threads - 1) / threads); }
#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte*) {
    const int j = int(blockIdx.x) * threads + int(threadIdx.x);
    const int step = int(gridDim.x) * threads;
#pragma unroll 1
    for (int i = 0; i < p.rows; ++i) write_store_row<Ra>(p, i, j, step);
  }
#endif
};

template <ratio Ra, class Order, emitted E>
struct emit_kernel {
  using problem = emit_problem;
  static constexpr bool can_run(const problem& p) { return fits<Ra, E>(p); }

  // ---- CPU executor: work item = the emission, its phases lane by lane
  static constexpr int lanes = 1;
  struct lane_state {};
  static long work_items(const problem&) { return 1; }
  static void lane_phase(const problem& p, long, int, lane_state&) {
    for (int lane = 0; lane < order::lanes; ++lane) pool_lane<Ra>(p, lane);
    const rmsnorm::problem norm = norm_view(p);
    order::host_lanes partial{};
    for (int lane = 0; lane < order::lanes; ++lane) {
      float acc[1] = {0.0f};
      rmsnorm::accumulate_squares<Order, 1>(norm, 0, lane, acc);
      partial.v[lane] = acc[0];
    }
    const float inv = rmsnorm::inverse_rms(order::combine<Order>(partial), p.d, p.eps);
    for (int lane = 0; lane < order::lanes; ++lane)
      rmsnorm::write_head<rmsnorm::weighting::weighted>(norm, 0, 0, lane, inv);
    for (int lane = 0; lane < order::lanes; ++lane) rope_lane(p, lane);
    for (int lane = 0; lane < order::lanes; ++lane) finish_lane<E>(p, lane);
  }
  static void finish(const problem&, long, const lane_state (&)[lanes]) {}

  // ---- GPU entry: one warp
  static constexpr int threads = order::lanes;
  static constexpr std::size_t shared_bytes = 0;
  static unsigned grid(const problem&) { return 1; }
#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte*) {
    const int lane = int(threadIdx.x);
    pool_lane<Ra>(p, lane);
    warp_barrier();
    const rmsnorm::problem norm = norm_view(p);
    float acc[1] = {0.0f};
    rmsnorm::accumulate_squares<Order, 1>(norm, 0, lane, acc);
    order::warp_lanes sum_squares{acc[0]};
    const float inv = rmsnorm::inverse_rms(order::combine<Order>(sum_squares), p.d, p.eps);
    warp_barrier();  // every lane has read the pooled row before any lane overwrites it
    rmsnorm::write_head<rmsnorm::weighting::weighted>(norm, 0, 0, lane, inv);
    warp_barrier();
    rope_lane(p, lane);
    warp_barrier();
    finish_lane<E>(p, lane);
  }
#endif
};

}  // namespace ordo::ops::compressor
