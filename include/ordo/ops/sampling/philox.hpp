/// The sampler's random numbers: Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random
/// numbers: as easy as 1, 2, 3", SC 2011; the Random123 reference), a counter-based generator: the
/// output is a pure function of (counter, key), with no state to carry, skip or rewind. The
/// sampler keys it by the seed and counts by the token position, so the draw for position p is
/// the same whether p is sampled alone, in a verify batch, or after a rejected speculation.
/// Only 32-bit integer multiply, xor and add: the same bits on the host, under nvcc and hip-clang.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"

namespace ordo::ops::sampling {

struct philox_block {
  std::uint32_t v[4];
};

/// Philox4x32 with 10 rounds: counter (c0..c3), key (k0, k1); checked against Random123's
/// known-answer vectors in tests/unit/ops/sampling/philox_test.cpp.
ORDO_HD ORDO_FORCEINLINE philox_block philox4x32_10(philox_block c, std::uint32_t k0, std::uint32_t k1) {
  constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;  // the round multipliers
  constexpr std::uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;  // the Weyl key increments
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    if (round > 0) k0 += w0, k1 += w1;
    const std::uint64_t p0 = std::uint64_t(m0) * c.v[0], p1 = std::uint64_t(m1) * c.v[2];
    const std::uint32_t hi0 = std::uint32_t(p0 >> 32), lo0 = std::uint32_t(p0);
    const std::uint32_t hi1 = std::uint32_t(p1 >> 32), lo1 = std::uint32_t(p1);
    c = philox_block{{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
  }
  return c;
}

/// The draw of (seed, position): key = seed (low word, high word), counter = (position low word,
/// position high word, 0, 0); the first output word's top 23 bits become the mantissa of a float
/// in [1, 2), minus 1: u = k·2^-23 exactly, k in [0, 2^23), so u <= 1 − 2^-23 and u·total < total
/// for every positive float total (the draw in body.hpp relies on it).
ORDO_HD ORDO_FORCEINLINE float uniform_of(std::uint64_t seed, std::uint64_t position) {
#if defined(ORDO_MUTANT_SAMPLING_RNG_POSITION_ONLY)
  seed = 0;  // mutant: the draw forgets the seed (tests/unit/ops/sampling must catch it)
#endif
  const philox_block out =
      philox4x32_10(philox_block{{std::uint32_t(position), std::uint32_t(position >> 32), 0u, 0u}}, std::uint32_t(seed),
                    std::uint32_t(seed >> 32));
  return numeric::detail::float_of(0x3f800000u | (out.v[0] >> 9)) - 1.0f;
}

}  // namespace ordo::ops::sampling
