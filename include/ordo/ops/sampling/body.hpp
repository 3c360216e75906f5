/// sampling phases shared by the GPU kernel and the CPU executor (ORDO_HD): one worker's best
/// token among its share of a row (ids t, t + workers, …), and the rule that merges two bests.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/ops/sampling/problem.hpp"

namespace ordo::ops::sampling {

/// A candidate token: its logit and id; id −1 is the empty candidate.
struct candidate {
  float logit;
  int id;
};

/// Larger logit first, then the lower id; NaN below every number (among NaNs, the lower id); the
/// empty candidate below everything. A strict total order on candidates of distinct ids (the same
/// rule as the router's top-k; both move to a shared header with the generic machinery).
ORDO_HD ORDO_FORCEINLINE bool ranks_before(candidate a, candidate b) {
  if (a.id < 0 || b.id < 0) return b.id < 0 && a.id >= 0;
  const bool a_nan = !(a.logit == a.logit), b_nan = !(b.logit == b.logit);
  if (a_nan || b_nan) return a_nan == b_nan ? a.id < b.id : b_nan;
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

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
