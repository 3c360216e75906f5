/// The host replay of rope for P2, written from the formula and not from body.hpp: one row's
/// heads, each tail pair rotated by the float (cos, sin) of its table with one product and one fmaf.
#pragma once
#include <cmath>
#include <vector>

namespace ordo::ops::rope::replay {

/// Returns the rotated copy of one row (width n_heads * head_dim); `inverse` negates sin.
inline std::vector<float> row(const float* x, const float* cos_sin, int n_heads, int head_dim, int n_rot, bool inverse) {
  std::vector<float> y(x, x + std::size_t(n_heads) * std::size_t(head_dim));
  for (int h = 0; h < n_heads; ++h) {
    float* tail = y.data() + std::size_t(h) * head_dim + (head_dim - n_rot);
    for (int k = 0; k < n_rot / 2; ++k) {
      const float c = cos_sin[2 * k], s = inverse ? -cos_sin[2 * k + 1] : cos_sin[2 * k + 1];
      const float a = tail[2 * k], b = tail[2 * k + 1];
      const float bs = b * s, bc = b * c;
      tail[2 * k] = std::fma(a, c, -bs);
      tail[2 * k + 1] = std::fma(a, s, bc);
    }
  }
  return y;
}

}  // namespace ordo::ops::rope::replay
