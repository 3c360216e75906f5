/// Deterministic random blocks of every weight format, for synthetic models and property tests.
/// Host-only. Each format tag owns its generator, `F::random_block(rng, scale)`, next to its
/// layout (its header states the distribution); this header is the generic spelling
/// `random_block<F>(rng, scale)` and the concept a format meets by having one. The draws are
/// random_draws.hpp's, so the same seed gives the same bytes on every compiler and platform.
///
/// A random block is valid and its dequantized values lie within about ±scale (scale > 0, normal,
/// well inside f16 range for the f16-scaled formats). Their spread differs by format (random
/// scales, non-uniform code grids); `F::random_block_gain` is the factor that brings the stddev of
/// random_block(rng, gain·s) to about that of uniform ±s (measured; tests/unit/synth checks it).
#pragma once

#include <concepts>

#include "ordo/quant/formats.hpp"
#include "ordo/quant/random_draws.hpp"

namespace ordo::quant {

template <class F>
concept random_block_format = quant_format<F> && requires(splitmix64& rng) {
  { F::random_block(rng, 1.0f) } -> std::same_as<typename F::block>;
  { F::random_block_gain } -> std::convertible_to<float>;
};

template <random_block_format F, class Rng>
typename F::block random_block(Rng& rng, float scale) {
  return F::random_block(rng, scale);
}

}  // namespace ordo::quant
