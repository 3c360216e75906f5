// Philox4x32-10 against Random123's published known-answer vectors (tests/kat_vectors of the
// Random123 distribution), and the draw's float: exactly k·2^-23 for the top 23 bits k of the first
// output word, so always in [0, 1 − 2^-23].
#include <gtest/gtest.h>

#include "ordo/ops/sampling/philox.hpp"

namespace {

using namespace ordo::ops::sampling;

void expect_block(philox_block got, std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  EXPECT_EQ(got.v[0], a);
  EXPECT_EQ(got.v[1], b);
  EXPECT_EQ(got.v[2], c);
  EXPECT_EQ(got.v[3], d);
}

TEST(Philox, Random123KnownAnswers) {
  expect_block(philox4x32_10({{0, 0, 0, 0}}, 0, 0), 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u);
  expect_block(philox4x32_10({{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, 0xffffffffu, 0xffffffffu),
               0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu);
  expect_block(philox4x32_10({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u),
               0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u);
}

TEST(Philox, UniformIsTheTop23BitsOfTheFirstWord) {
  for (std::uint64_t seed : {0ull, 1ull, 0x299f31d0a4093822ull, ~0ull})
    for (std::uint64_t pos : {0ull, 1ull, 12345ull, 0x85a308d3243f6a88ull}) {
      const auto w = philox4x32_10({{std::uint32_t(pos), std::uint32_t(pos >> 32), 0, 0}}, std::uint32_t(seed),
                                   std::uint32_t(seed >> 32));
      const float u = uniform_of(seed, pos);
      EXPECT_EQ(double(u), double(w.v[0] >> 9) * 0x1p-23) << seed << " " << pos;
      EXPECT_GE(u, 0.0f);
      EXPECT_LE(u, 1.0f - 0x1p-23f);
    }
  // The extremes of the mapping: k = 0 and k = 2^23 − 1.
  EXPECT_EQ(ordo::numeric::detail::float_of(0x3f800000u) - 1.0f, 0.0f);
  EXPECT_EQ(ordo::numeric::detail::float_of(0x3fffffffu) - 1.0f, 1.0f - 0x1p-23f);
}

}  // namespace
