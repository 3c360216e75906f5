/// The one place the generation code calls the sampling family: one row of its CPU executor,
/// greedy (argmax, ties to the lowest id, the same token as `ordo eval --gen`) at temperature 0,
/// else the filters and the Philox draw keyed by (seed, position), so a token is a pure function
/// of the logits, the settings and its position (E5: same seed, same bytes).
#pragma once
#include <cstdint>
#include <span>

#include "ordo/ops/sampling/problem.hpp"

namespace ordo::generate {

class token_sampler {
 public:
  /// Throws std::invalid_argument for settings out of range (the CLI checks them first).
  explicit token_sampler(const ops::sampling::settings& s);
  /// The token for the logits [n_vocab] predicting position `position` of the sequence.
  std::int32_t choose(std::span<const float> logits, std::uint64_t position) const;

 private:
  ops::sampling::settings settings_;
  void (*run_)(const ops::sampling::problem&);
};

}  // namespace ordo::generate
