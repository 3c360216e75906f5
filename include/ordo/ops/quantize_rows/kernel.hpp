/// The quantize_rows kernel of activation format A: one work item (CPU) per (row, block) running
/// quantize_block; on the GPU a warp per (row, block) where A has a warp form (warp.hpp: the same
/// bytes), else one thread per (row, block) running quantize_block.
#pragma once
#include "ordo/ops/quantize_rows/body.hpp"
#include "ordo/ops/quantize_rows/warp.hpp"

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
  static constexpr bool by_warp = has_warp_form<A>;
  static_assert(!by_warp || threads % 32 == 0, "a warp per block needs whole warps per CTA");
  static unsigned grid(const problem& p) {
    const long per_cta = by_warp ? threads / 32 : threads;
    return unsigned((work_items(p) + per_cta - 1) / per_cta);
  }
#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte*) {
    const long long nb = p.k / A::block_elems;
    if constexpr (by_warp) {
      const long long i = (long long)blockIdx.x * (threads / 32) + threadIdx.x / 32;
      if (i >= nb * p.rows) return;  // the whole warp: the lanes share i
      const int r = int(i / nb), b = int(i % nb);
      quantize_block_warp<A>(p.x + std::size_t(r) * p.x_stride + std::size_t(b) * A::block_elems,
                             reinterpret_cast<typename A::block*>(p.out + std::size_t(r) * p.out_row_bytes)[b],
                             int(threadIdx.x % 32));
    } else {
      const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
      if (i >= nb * p.rows) return;
      quantize_block<A>(p, int(i / nb), int(i % nb));
    }
  }
#endif
};

}  // namespace ordo::ops::quantize_rows
