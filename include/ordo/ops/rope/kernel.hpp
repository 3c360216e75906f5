/// The rope kernel of spec (R, D) for the generic GPU entry and CPU executor: one work item (CPU)
/// or one thread (GPU) per (head, pair), looping over the live rows of the pass (the tier: R rows
/// reuse the indexing; nothing about one row's arithmetic depends on R). Pairs are independent,
/// so the CPU's item order and thread split are free.
#pragma once
#include <cstddef>

#include "ordo/ops/rope/body.hpp"

namespace ordo::ops::rope {

/// Launch shape (cannot change bits: each thread owns whole pairs).
struct policy {
  static constexpr int threads = 128;
};

template <int R, direction D, class Policy>
struct kernel {
  using problem = rope::problem;
  static constexpr bool can_run(const problem& p) { return fits<R>(p); }
  static long pairs(const problem& p) { return long(p.n_rot / 2); }

  /// Item t = (head t / pairs, pair t % pairs) of every live row.
  ORDO_HD static void rotate_item(const problem& p, long long t) {
    const int n_pairs = p.n_rot / 2;
    const int h = int(t / n_pairs), k = int(t % n_pairs);
#pragma unroll 1
    for (int i = 0; i < p.rows; ++i) rotate_pair<D>(p, i, h, k);
  }

  // ---- CPU executor: one lane per work item
  static constexpr int lanes = 1;
  struct lane_state {};
  static long work_items(const problem& p) { return long(p.n_heads) * pairs(p); }
  static void lane_phase(const problem& p, long item, int, lane_state&) { rotate_item(p, item); }
  static void finish(const problem&, long, const lane_state (&)[lanes]) {}

  // ---- GPU entry: one thread per work item
  static constexpr int threads = Policy::threads;
  static constexpr std::size_t shared_bytes = 0;
  static unsigned grid(const problem& p) { return unsigned((work_items(p) + threads - 1) / threads); }
#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte*) {
    const long long t = (long long)blockIdx.x * threads + threadIdx.x;
    if (t >= (long long)p.n_heads * (p.n_rot / 2)) return;
    rotate_item(p, t);
  }
#endif
};

}  // namespace ordo::ops::rope
