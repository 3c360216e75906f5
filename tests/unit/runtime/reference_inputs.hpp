// Inputs the engine-vs-reference tests share: a token sequence from a seed (an LCG, so every
// test names its sequence by the seed) and an engine HC row as the reference's hc_state.
#pragma once
#include <cstdint>
#include <vector>

#include "ordo/ref/hc.hpp"

namespace ordo::runtime::test {

inline std::vector<int32_t> tokens(std::size_t n, uint32_t vocab, uint64_t seed) {
  std::vector<int32_t> t(n);
  for (auto& v : t) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<int32_t>((seed >> 33) % vocab);
  }
  return t;
}

/// [streams][d] floats → the reference's HC state (double).
inline ref::hc_state to_ref(const float* h, uint32_t streams, uint32_t d) {
  ref::hc_state s(streams, d);
  for (uint32_t a = 0; a < streams; ++a)
    for (uint32_t j = 0; j < d; ++j) s(a, j) = h[a * d + j];
  return s;
}

}  // namespace ordo::runtime::test
