/// The provisional CPU executor of sampling (until the generic executor of DESIGN §3a lands): the
/// GPU's 256 workers per row run one after another and their bests merge in worker order (any
/// merge order gives the same token: ranks_before is a strict total order).
#pragma once
#include "ordo/ops/sampling/body.hpp"
#include "ordo/ops/sampling/sampling.hpp"

namespace ordo::ops::sampling {

inline constexpr int workers_per_row = 256;

template <int R, mode M>
void run_cpu(const problem& p) {
  for (int i = 0; i < p.rows; ++i) {
    candidate best{0.0f, -1};
    for (int t = 0; t < workers_per_row; ++t) {
      const candidate c = worker_best(p, i, t, workers_per_row);
      if (ranks_before(c, best)) best = c;
    }
    p.tokens[i] = best.id;
  }
}

}  // namespace ordo::ops::sampling
