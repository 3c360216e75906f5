/// The hc kernel of spec (R, S) for the generic GPU entry and CPU executor (HIP and CUDA from one
/// source). Every value is computed alone by the body, so nothing depends on R, the grid or the
/// device. CPU: work item = row (lanes = 1), the body's phase over the row's elements in
/// ascending order. GPU: split — one thread per row; weighted_sum, collapse, post —
/// element-parallel over n_embd (a grid of `threads`-thread CTAs), rows rolled; collapse's 4
/// weights are recomputed by every thread from the row's mixes (the same arithmetic, so the same
/// bits). Iters is DS4's 20 Sinkhorn iterations; only the mutation checks instantiate another.
#pragma once
#include <cstddef>

#include "ordo/ops/hc/body.hpp"
#include "ordo/ops/hc/problem.hpp"

namespace ordo::ops::hc {

template <int R, stage S, int Iters = sinkhorn_iters>
struct kernel {
  using problem = hc::problem;
  static constexpr bool can_run(const problem& p) { return fits<R, S>(p); }

  // ---- CPU executor: work item = row
  static constexpr int lanes = 1;
  struct lane_state {};
  static long work_items(const problem& p) { return p.rows; }
  static void lane_phase(const problem& p, long row, int, lane_state&) { write_row(p, int(row), 0, 1); }
  static void finish(const problem&, long, const lane_state (&)[lanes]) {}

  // ---- GPU entry: split one thread per row, the other stages one thread per element
  static constexpr int threads = 256;
  static constexpr std::size_t shared_bytes = 0;
  static unsigned grid(const problem& p) {
    const int items = S == stage::split ? p.rows : p.n_embd;
    return unsigned((items + threads - 1) / threads);
  }
#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte*) {
    const int t = int(blockIdx.x) * threads + int(threadIdx.x);
    if constexpr (S == stage::split) {
      if (t < p.rows) write_split<Iters>(p, t);
    } else {
      const int step = int(gridDim.x) * threads;
#pragma unroll 1
      for (int i = 0; i < p.rows; ++i) write_row(p, i, t, step);
    }
  }
#endif

  /// Row i's outputs of the stage for elements first, first + step, … (split: the whole row).
  ORDO_HD static void write_row(const problem& p, int i, int first, int step) {
    if constexpr (S == stage::split) {
      write_split<Iters>(p, i);
    } else if constexpr (S == stage::weighted_sum) {
      write_collapse(p, i, split_of(p, i), first, step);  // the pre weights are split[0..3]
    } else if constexpr (S == stage::post) {
      write_post(p, i, first, step);
    } else {
      float w[n_streams];
      head_weights(mix_of(p, i), p.scale, p.base, p.hc_eps, w);
      write_collapse(p, i, w, first, step);
    }
  }
};

}  // namespace ordo::ops::hc
