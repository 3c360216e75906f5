/// The sampling kernel of spec (R, M) for the generic GPU entry and CPU executor. Work item = one
/// row (lanes = 1): the row's workers or chunks depend on one another (a merge of bests, chunk
/// sums every thread folds), so the CPU executor visits them inside the work item.
/// greedy — CPU: the GPU's 256 workers per row run one after another and their bests merge in
/// worker order; GPU: one CTA of 256 threads per live row, each thread scans its share of the
/// vocabulary, the warps merge by an xor butterfly of (logit, id) pairs and thread 0 merges the 8
/// warp bests from shared memory. Any merge order gives the same token: ranks_before is a strict
/// total order.
/// sample — sample_row (body.hpp) with a reducer that runs the chunks one after another (CPU) or
/// gives thread c chunk c in shared memory (GPU); every thread then folds the same 256 values in
/// the same order, so the whole CTA takes the same branches and thread 0 writes the token the CPU
/// executor writes.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ordo/ops/sampling/body.hpp"
#include "ordo/ops/sampling/problem.hpp"
#if defined(ORDO_DEVICE_PASS)
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/numeric/conversions.hpp"
#endif

namespace ordo::ops::sampling {

inline constexpr int workers_per_row = 256;
static_assert(workers_per_row == chunks_per_row, "the GPU kernel gives each thread one chunk");

/// sample_row's Reducer on the host: every chunk in turn (ORDO_HD only because GPU TUs compile the
/// CPU executor too, and sample_row is ORDO_HD).
struct sequential_chunks {
  float floats_[chunks_per_row];
  int ints_[chunks_per_row];
  template <class Fn>
  ORDO_HD const float* floats(Fn fn) {
    for (int c = 0; c < chunks_per_row; ++c) floats_[c] = fn(c);
    return floats_;
  }
  template <class Fn>
  ORDO_HD const int* ints(Fn fn) {
    for (int c = 0; c < chunks_per_row; ++c) ints_[c] = fn(c);
    return ints_;
  }
};

#if defined(ORDO_DEVICE_PASS)
/// sample_row's Reducer on the device: thread c evaluates chunk c; the barriers before and after
/// make the previous array dead and the new one visible to the whole CTA.
struct cta_chunks {
  float* floats_;  // [chunks_per_row] shared
  int* ints_;      // [chunks_per_row] shared
  int thread;
  template <class Fn>
  ORDO_HD const float* floats(Fn fn) {
    return fill(floats_, fn);
  }
  template <class Fn>
  ORDO_HD const int* ints(Fn fn) {
    return fill(ints_, fn);
  }
  template <class T, class Fn>
  ORDO_HD const T* fill(T* chunk_values, Fn fn) {
    __syncthreads();
    chunk_values[thread] = fn(thread);
    __syncthreads();
    return chunk_values;
  }
};
#endif

template <int R, mode M>
struct kernel {
  using problem = sampling::problem;
  static constexpr bool can_run(const problem& p) { return fits<R, M>(p); }

  // ---- CPU executor: work item = row; the workers (greedy) or chunks (sample) inside it
  static constexpr int lanes = 1;
  struct lane_state {};
  static long work_items(const problem& p) { return p.rows; }
  static void lane_phase(const problem& p, long row, int, lane_state&) {
    const int i = int(row);
    if constexpr (M == mode::sample) {
      sequential_chunks red;
      p.tokens[i] = sample_row(p.logits + std::size_t(i) * p.logit_stride, p.n_vocab, p.sampler, p.positions[i], red);
    } else {
      candidate best{0.0f, -1};
      for (int t = 0; t < workers_per_row; ++t) {
        const candidate c = worker_best(p, i, t, workers_per_row);
        if (ranks_before(c, best)) best = c;
      }
      p.tokens[i] = best.id;
    }
  }
  static void finish(const problem&, long, const lane_state (&)[lanes]) {}

  // ---- GPU entry: one CTA of 256 threads per live row
  static constexpr int threads = workers_per_row;
  static constexpr int warps = workers_per_row / 32;
  // sample: the chunk floats, then the chunk ints; greedy: the warp bests' logits, then their ids
  static constexpr std::size_t shared_bytes = M == mode::sample ? chunks_per_row * (sizeof(float) + sizeof(int))
                                                                : warps * (sizeof(float) + sizeof(int));
  static unsigned grid(const problem& p) { return unsigned(p.rows); }
#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte* shared) {
    const int i = int(blockIdx.x), t = int(threadIdx.x);
    if constexpr (M == mode::sample) {
      float* chunk_floats = reinterpret_cast<float*>(shared);
      int* chunk_ints = reinterpret_cast<int*>(shared + chunks_per_row * sizeof(float));
      cta_chunks red{chunk_floats, chunk_ints, t};
      const int token = sample_row(p.logits + std::size_t(i) * p.logit_stride, p.n_vocab, p.sampler, p.positions[i], red);
      if (t == 0) p.tokens[i] = token;
    } else {
      float* warp_logit = reinterpret_cast<float*>(shared);
      int* warp_id = reinterpret_cast<int*>(shared + warps * sizeof(float));
      const int lane = t % 32;
      candidate best = worker_best(p, i, t, workers_per_row);
#pragma unroll
      for (int offset = 16; offset >= 1; offset /= 2) {
        // The id travels as the bits of a float: a shuffle moves registers, it does not round.
        const candidate other{gpu::shfl_xor(best.logit, offset),
                              int(numeric::detail::bits_of(gpu::shfl_xor(numeric::detail::float_of(std::uint32_t(best.id)), offset)))};
        if (ranks_before(other, best)) best = other;
      }
      if (lane == 0) warp_logit[t / 32] = best.logit, warp_id[t / 32] = best.id;
      __syncthreads();
      if (t == 0) {
        candidate row_best{warp_logit[0], warp_id[0]};
        for (int w = 1; w < warps; ++w) {
          const candidate c{warp_logit[w], warp_id[w]};
          if (ranks_before(c, row_best)) row_best = c;
        }
        p.tokens[i] = row_best.id;
      }
    }
  }
#endif
};

}  // namespace ordo::ops::sampling
