/// sampling phases shared by the GPU kernel and the CPU executor (ORDO_HD): one worker's best
/// token among its share of a row (ids t, t + workers, …), and the rule that merges two bests.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/ops/ranking.hpp"
#include "ordo/ops/sampling/problem.hpp"

namespace ordo::ops::sampling {

/// A candidate token: its logit and id; id −1 is the empty candidate.
struct candidate {
  float logit;
  int id;
};

/// Worker t's best token of row i among ids t, t + workers, t + 2·workers, ….
ORDO_HD ORDO_FORCEINLINE candidate worker_best(const problem& p, int i, int t, int workers) {
  const float* z = p.logits + std::size_t(i) * p.logit_stride;
  candidate best{0.0f, -1};
#pragma unroll 1
  for (int v = t; v < p.n_vocab; v += workers) {
    const candidate c{z[v], v};
    if (ranks_before(c, best)) best = c;
  }
  return best;
}

}  // namespace ordo::ops::sampling
