/// The provisional CPU executor of hc (until the generic executor of DESIGN §3a lands): the body's
/// phases row by row, elements in ascending order. Exact: the bit reference of every GPU spec (E2).
#pragma once
#include "ordo/ops/hc/body.hpp"
#include "ordo/ops/hc/hc.hpp"

namespace ordo::ops::hc {

/// Iters is DS4's 20; only the Sinkhorn mutation check instantiates another count.
template <int R, stage S, int Iters = sinkhorn_iters>
void run_cpu(const problem& p) {
  for (int i = 0; i < p.rows; ++i) {
    if constexpr (S == stage::split) {
      write_split<Iters>(p, i);
    } else if constexpr (S == stage::weighted_sum) {
      write_collapse(p, i, split_of(p, i), 0, 1);  // the pre weights are split[0..3]
    } else if constexpr (S == stage::post) {
      write_post(p, i, 0, 1);
    } else {
      float w[n_streams];
      head_weights(mix_of(p, i), p.scale, p.base, p.hc_eps, w);
      write_collapse(p, i, w, 0, 1);
    }
  }
}

}  // namespace ordo::ops::hc
