/// The quantize_rows kernel of activation format A: one work item (CPU) or one thread (GPU) per
/// (row, block), both running quantize_block.
#pragma once
#include "ordo/ops/quantize_rows/body.hpp"

namespace ordo::ops::quantize_rows {

template <quant::activation_format A, class Policy>
struct kernel {
  using problem = quantize_rows::problem;
  static constexpr bool can_run(const problem& p) { return fits<A>(p); }
  static long blocks(const problem& p) { return long(p.k / A::block_elems); }

  // ---- CPU executor: one lane per work item
  static constexpr int lanes = 1;
  struct lane_state {};
  static long work_items(const problem& p) { return blocks(p) * p.rows; }
  static void lane_phase(const problem& p, long item, int, lane_state&) {
    quantize_block<A>(p, int(item / blocks(p)), int(item % blocks(p)));
  }
  static void finish(const problem&, long, const lane_state (&)[lanes]) {}

  // ---- GPU entry
  static constexpr int threads = Policy::threads;
  static constexpr std::size_t shared_bytes = 0;
  static unsigned grid(const problem& p) { return unsigned((work_items(p) + threads - 1) / threads); }
#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte*) {
    const long long nb = p.k / A::block_elems;
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nb * p.rows) return;
    quantize_block<A>(p, int(i / nb), int(i % nb));
  }
#endif
};

}  // namespace ordo::ops::quantize_rows
