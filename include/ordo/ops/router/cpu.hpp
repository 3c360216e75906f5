/// The provisional CPU executor of router (until the generic executor of DESIGN §3a lands): per
/// row and round, lanes 0..31 propose in turn and the best proposal wins (the order of proposals
/// cannot matter: ranks_before is a strict total order), then the weight phase.
#pragma once
#include "ordo/ops/router/body.hpp"
#include "ordo/ops/router/router.hpp"

namespace ordo::ops::router {

template <int R, selection S>
void run_cpu(const problem& p) {
  for (int i = 0; i < p.rows; ++i) {
    if constexpr (S == selection::hash) {
      write_hash_experts(p, i);
    } else {
      int chosen[max_used];
      for (int k = 0; k < p.n_used; ++k) {
        candidate best{0.0f, -1};
        for (int lane = 0; lane < 32; ++lane) {
          const candidate c = lane_best(p, i, lane, chosen, k);
          if (ranks_before(c, best)) best = c;
        }
        chosen[k] = best.id;
        p.experts[std::size_t(i) * p.out_stride + std::size_t(k)] = best.id;
      }
    }
    write_weights(p, i);
  }
}

}  // namespace ordo::ops::router
