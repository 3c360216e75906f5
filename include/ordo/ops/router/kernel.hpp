/// The router kernel of spec (R, S) for the generic GPU entry and CPU executor. Work item = one
/// row. A selection round needs every lane's proposal before the next round can start, so the CPU
/// executor runs a row as one work item that visits the 32 logical lanes itself, round by round
/// (lanes = 1); the proposals merge under ranks_before, a strict total order, so the merge order
/// cannot matter. GPU: one CTA per pass, one logical warp per live row; each round combines the
/// lanes' proposals with an xor butterfly of (key, id) pairs under ranks_before, and lane 0
/// records the winner and finally writes the weights (the n_used-term sum stays on one lane, in
/// output order). Where a lane's experts fit one batch, their keys are computed once per row and
/// every round ranks the same candidates (batch_keys, lane_best_of).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ordo/ops/router/body.hpp"
#if defined(ORDO_DEVICE_PASS)
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/numeric/conversions.hpp"
#endif

namespace ordo::ops::router {

template <int R, selection S>
struct kernel {
  using problem = router::problem;
  static constexpr bool can_run(const problem& p) { return fits<R, S>(p); }

  // ---- CPU executor: work item = row; the 32 logical lanes are visited inside each round
  static constexpr int lanes = 1;
  struct lane_state {};
  static long work_items(const problem& p) { return p.rows; }
  static void lane_phase(const problem& p, long row, int, lane_state&) {
    const int i = int(row);
    if constexpr (S == selection::hash) {
      write_hash_experts(p, i);
    } else {
      int chosen[max_used];
      const bool cached = keys_fit(p);
      candidate keys[32][key_batch];
      if (cached)
        for (int lane = 0; lane < 32; ++lane) batch_keys(p, i, lane, keys[lane]);
      for (int k = 0; k < p.n_used; ++k) {
        candidate best{0.0f, -1};
        for (int lane = 0; lane < 32; ++lane) {
          const candidate c = cached ? lane_best_of(keys[lane], chosen, k) : lane_best(p, i, lane, chosen, k);
          if (ranks_before(c, best)) best = c;
        }
        chosen[k] = best.id;
        p.experts[std::size_t(i) * p.out_stride + std::size_t(k)] = best.id;
      }
    }
    write_weights(p, i);
  }
  static void finish(const problem&, long, const lane_state (&)[lanes]) {}

  // ---- GPU entry: one CTA, a warp per live row
  static constexpr int threads = R * 32;
  static constexpr std::size_t shared_bytes = 0;
  static unsigned grid(const problem&) { return 1; }
#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte*) {
    const int i = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    if (i >= p.rows) return;  // whole warps leave together
    if constexpr (S == selection::hash) {
      if (lane == 0) write_hash_experts(p, i);
    } else {
      int chosen[max_used];
      // Each lane's keys once, before the rounds (keys_fit: DS4's 256 experts): a round recomputing
      // sqrt(softplus) of its 8 experts was most of the kernel's time.
      const bool cached = keys_fit(p);
      candidate keys[key_batch];
      if (cached) batch_keys(p, i, lane, keys);
#pragma unroll 1
      for (int k = 0; k < p.n_used; ++k) {
        candidate best = cached ? lane_best_of(keys, chosen, k) : lane_best(p, i, lane, chosen, k);
#pragma unroll
        for (int offset = 16; offset >= 1; offset /= 2) {
          // The id travels as the bits of a float: a shuffle moves registers, it does not round.
          const candidate other{gpu::shfl_xor(best.key, offset),
                                int(numeric::detail::bits_of(gpu::shfl_xor(numeric::detail::float_of(std::uint32_t(best.id)), offset)))};
          if (ranks_before(other, best)) best = other;
        }
        chosen[k] = best.id;  // every lane holds the same winner
        if (lane == 0) p.experts[std::size_t(i) * p.out_stride + std::size_t(k)] = best.id;
      }
    }
    if (lane == 0) write_weights(p, i);
  }
#endif
};

}  // namespace ordo::ops::router
