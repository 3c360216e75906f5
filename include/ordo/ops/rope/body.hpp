/// rope phase shared by the GPU kernel and the CPU executor (ORDO_HD): rotates pair k of head h of
/// row i. Each output is one fmaf over one rounded product, in a fixed form:
///   x0' = fmaf(x0, c, −(x1·s)),  x1' = fmaf(x0, s, x1·c)   (s negated for the inverse)
#pragma once
#include <math.h>

#include "ordo/gpu/portability.hpp"
#include "ordo/ops/rope/problem.hpp"

namespace ordo::ops::rope {

template <direction D>
ORDO_HD ORDO_FORCEINLINE void rotate_pair(const problem& p, int i, int h, int k) {
  const float* t = p.cos_sin + std::size_t(i) * p.table_stride + 2 * std::size_t(k);
  const float c = t[0];
  const float s = D == direction::forward ? t[1] : -t[1];
  float* pair = p.x + std::size_t(i) * p.x_stride + std::size_t(h) * std::size_t(p.head_dim) +
                std::size_t(p.head_dim - p.n_rot + 2 * k);
  const float x0 = pair[0], x1 = pair[1];
  pair[0] = fmaf(x0, c, -(x1 * s));
  pair[1] = fmaf(x0, s, x1 * c);
}

}  // namespace ordo::ops::rope
