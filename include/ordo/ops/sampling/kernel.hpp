/// The sampling GPU kernels, one CTA of 256 threads per live row.
/// greedy: each thread scans its share of the vocabulary, the warps merge by an xor butterfly of
/// (logit, id) pairs, and thread 0 merges the 8 warp bests from shared memory. Exact in any tree:
/// ranks_before is a total order.
/// sample: every thread runs sample_row (body.hpp) with a reducer in which thread c computes chunk
/// c into shared memory; every thread then folds the same 256 values in the same order, so the
/// whole CTA takes the same branches and thread 0 writes the token the CPU executor writes.
#pragma once
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/ops/sampling/body.hpp"
#include "ordo/ops/sampling/cpu.hpp"
#include "ordo/ops/sampling/sampling.hpp"

namespace ordo::ops::sampling {

template <int R, mode M>
constexpr bool can_run(const problem& p) {
  return valid<R, M>(p);
}

#if defined(ORDO_GPU)
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
#if defined(ORDO_DEVICE_PASS)
    __syncthreads();
    chunk_values[thread] = fn(thread);
    __syncthreads();
#endif
    return chunk_values;
  }
};

template <int R, mode M>
ORDO_GLOBAL void __launch_bounds__(workers_per_row) sampling_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  if constexpr (M == mode::sample) {
    __shared__ float chunk_floats[chunks_per_row];
    __shared__ int chunk_ints[chunks_per_row];
    const int i = int(blockIdx.x);
    cta_chunks red{chunk_floats, chunk_ints, int(threadIdx.x)};
    const int token = sample_row(p.logits + std::size_t(i) * p.logit_stride, p.n_vocab, p.sampler, p.positions[i], red);
    if (threadIdx.x == 0) p.tokens[i] = token;
    return;
  }
  constexpr int warps = workers_per_row / 32;
  __shared__ float warp_logit[warps];
  __shared__ int warp_id[warps];
  const int i = int(blockIdx.x), t = int(threadIdx.x), lane = t % 32;
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
#else
  (void)p;
#endif
}

template <int R, mode M>
void launch_gpu(const problem& p, gpu::stream_t stream) {
  sampling_kernel<R, M><<<unsigned(p.rows), workers_per_row, 0, gpu::native(stream)>>>(p);  // p.positions: device memory
  ORDO_GPU_CHECK_LAUNCH();
}

using launcher = void (*)(const problem&, gpu::stream_t);

/// The launcher of every spec in op::for_each_spec's order (entry i is cpu_entries()[i]'s spec).
/// Provisional, like entries.hpp: kernels/sampling.cpp takes these addresses so the kernels become
/// object code; the generic registry of DESIGN §3a replaces both.
inline std::vector<launcher> gpu_launchers() {
  std::vector<launcher> v;
  op::for_each_spec([&]<int R, mode M>() { v.push_back(&launch_gpu<R, M>); });
  return v;
}

/// gpu_launchers() built once, defined in kernels/sampling.cpp (GPU builds only).
const std::vector<launcher>& gpu_launcher_table();
#endif

}  // namespace ordo::ops::sampling
