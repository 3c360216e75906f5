// Greedy sampling at DS4's 129,280 logits against the engine's existing greedy rule (eval::argmax,
// src/eval: first maximum, written independently) on NaN-free rows, including planted ties.
#include <gtest/gtest.h>

#include "eval/eval.hpp"
#include "data.hpp"  // tests/property/drivers: order-sensitive inputs
#include "ordo/ops/sampling/sampling.hpp"
#include "ordo/registry/table.hpp"

namespace {

using namespace ordo::ops::sampling;

TEST(SamplingArgmax, AgreesWithEvalArgmaxAtFullVocabulary) {
  constexpr int n_vocab = 129280, rows = 16;
  ordo::quant::splitmix64 rng{2026};
  std::vector<float> z;
  for (int i = 0; i < rows; ++i) {
    auto row = ordo::test::mixed_floats(rng, n_vocab, 6);
    if (i % 2 == 1) {  // a tie of the maximum at two or more random ids
      const float top = 1000.0f;
      for (int k = 0; k < 2 + i % 3; ++k) row[rng() % n_vocab] = top;
    }
    z.insert(z.end(), row.begin(), row.end());
  }
  std::vector<std::int32_t> tokens(rows);
  ordo::registry::find<op>("sampling.r16.greedy").run_cpu(problem{z.data(), n_vocab, tokens.data(), n_vocab, rows});
  for (int i = 0; i < rows; ++i)
    EXPECT_EQ(tokens[std::size_t(i)], ordo::eval::argmax({z.data() + std::size_t(i) * n_vocab, std::size_t(n_vocab)})) << i;
}

}  // namespace
