/// The kv_store kernel of spec R for the generic GPU entry and CPU executor (HIP and CUDA from one
/// source). Each value is computed alone by the body (its block's amax is re-read for each value:
/// a max, the same in any order), so nothing depends on R, the grid or the device. CPU: work item
/// = row (lanes = 1), dims in ascending order. GPU: one CTA of `threads` threads per row
/// (blockIdx.x = row); thread t stores dims t, t + threads, …
#pragma once
#include <cstddef>

#include "ordo/ops/kv_store/body.hpp"
#include "ordo/ops/kv_store/problem.hpp"

namespace ordo::ops::kv_store {

template <int R>
struct kernel {
  using problem = kv_store::problem;
  static constexpr bool can_run(const problem& p) { return fits<R>(p); }

  // ---- CPU executor: work item = row
  static constexpr int lanes = 1;
  struct lane_state {};
  static long work_items(const problem& p) { return p.rows; }
  static void lane_phase(const problem& p, long row, int, lane_state&) { write_row(p, int(row), 0, 1); }
  static void finish(const problem&, long, const lane_state (&)[lanes]) {}

  // ---- GPU entry: a CTA per row
  static constexpr int threads = 128;
  static constexpr std::size_t shared_bytes = 0;
  static unsigned grid(const problem& p) { return unsigned(p.rows); }
#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte*) { write_row(p, int(blockIdx.x), int(threadIdx.x), threads); }
#endif
};

}  // namespace ordo::ops::kv_store
