/// The provisional CPU executor of sampling (until the generic executor of DESIGN §3a lands).
/// greedy: the GPU's 256 workers per row run one after another and their bests merge in worker
/// order (any merge order gives the same token: ranks_before is a strict total order).
/// sample: sample_row (body.hpp) with a reducer that runs the chunks one after another, so the
/// chunk sums and their fold are the GPU's, bit for bit.
#pragma once
#include "ordo/ops/sampling/body.hpp"
#include "ordo/ops/sampling/sampling.hpp"

namespace ordo::ops::sampling {

inline constexpr int workers_per_row = 256;
static_assert(workers_per_row == chunks_per_row, "the GPU kernel gives each thread one chunk");

/// sample_row's Reducer on the host: every chunk in turn (ORDO_HD only because GPU TUs instantiate
/// the CPU entry list too, and sample_row is ORDO_HD).
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

template <int R, mode M>
void run_cpu(const problem& p) {
  for (int i = 0; i < p.rows; ++i) {
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
}

}  // namespace ordo::ops::sampling
