// Token sequences of the runtime's E3 / E2 tests (session_test, tests/gpu/engine): a
// deterministic pseudo-random prompt over the vocabulary and greedy choice (lowest id on ties).
#pragma once
#include <cstdint>
#include <vector>

namespace ordo::runtime::test {

inline std::vector<int32_t> prompt_tokens(std::size_t n, uint32_t vocab) {
  std::vector<int32_t> t(n);
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (auto& v : t) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<int32_t>((s >> 33) % vocab);
  }
  return t;
}

inline int32_t argmax(const std::vector<float>& z) {
  int32_t best = 0;
  for (std::size_t i = 1; i < z.size(); ++i)
    if (z[i] > z[best]) best = static_cast<int32_t>(i);
  return best;
}

}  // namespace ordo::runtime::test
