/// The provisional CPU executor of rope (until the generic executor of DESIGN §3a lands): the body
/// for every live row, head and pair, in that order (the order is free: pairs are independent).
#pragma once
#include "ordo/ops/rope/body.hpp"

namespace ordo::ops::rope {

template <int R, direction D>
void run_cpu(const problem& p) {
  for (int i = 0; i < p.rows; ++i)
    for (int h = 0; h < p.n_heads; ++h)
      for (int k = 0; k < p.n_rot / 2; ++k) rotate_pair<D>(p, i, h, k);
}

}  // namespace ordo::ops::rope
