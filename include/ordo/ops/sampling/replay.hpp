/// The host replay of greedy sampling for P2, from the definition: one pass in id order keeping
/// the first largest logit, NaN never chosen over a number (an all-NaN row gives id 0).
#pragma once
#include <cmath>
#include <cstdint>

namespace ordo::ops::sampling::replay {

inline std::int32_t argmax(const float* z, int n) {
  int best = 0;
  for (int v = 1; v < n; ++v)
    if (!std::isnan(z[v]) && (std::isnan(z[best]) || z[v] > z[best])) best = v;
  return std::int32_t(best);
}

}  // namespace ordo::ops::sampling::replay
