// The packed chunk decoders of the cooperative qmv arrangement (include/ordo/ops/qmv/
// int_chunk_decoders.hpp) against each format's own byte-loop dot_int_chunk, every chunk of
// random blocks (every grid index, sign pattern, scale and code occurs) and random activations.
#include "ordo/ops/qmv/int_chunk_decoders.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ordo/quant/random_block.hpp"
#include "ordo/quant/random_draws.hpp"

namespace {

using namespace ordo;

template <class F>
void check_every_chunk(int blocks) {
  quant::splitmix64 rng{0x5eedu + F::ggml_type};
  // Activations with codes over the whole int8 range (−128 included) and consistent bsums.
  std::vector<quant::q8_k::block> x(1);
  int mismatches = 0;
  for (int n = 0; n < blocks; ++n) {
    const typename F::block w = quant::random_block<F>(rng, 1.0f);
    auto& a = x[0];
    a.d = 0.5f;
    for (auto& q : a.qs) q = static_cast<std::int8_t>(rng() >> 56);
    for (int j = 0; j < 16; ++j) {
      int s = 0;
      for (int l = 0; l < 16; ++l) s += a.qs[16 * j + l];
      a.bsums[j] = static_cast<std::int16_t>(s);
    }
    for (int c = 0; c < F::int_chunks; ++c) {
      std::uint32_t words[8];
      ops::qmv::int_chunk_decoder<F>::decode(w, c, words);
      const auto got = ops::qmv::int_chunk_decoder<F>::dot(w, c, words, a);
      const auto want = F::dot_int_chunk(w, a, c);
      if (std::memcmp(&got, &want, sizeof got) != 0 && ++mismatches <= 5)
        ADD_FAILURE() << F::name << " block " << n << " chunk " << c << ": the packed decoder's integer part differs";
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(int_chunk_decoders, iq2_xxs_equals_dot_int_chunk) { check_every_chunk<quant::iq2_xxs>(4000); }
TEST(int_chunk_decoders, q2_k_equals_dot_int_chunk) { check_every_chunk<quant::q2_k>(4000); }

TEST(int_chunk_decoders, byte_mask_spreads_four_bits) {
  EXPECT_EQ(ops::qmv::detail::byte_mask(0b0000u), 0x00000000u);
  EXPECT_EQ(ops::qmv::detail::byte_mask(0b0101u), 0x00ff00ffu);
  EXPECT_EQ(ops::qmv::detail::byte_mask(0b1010u), 0xff00ff00u);
  EXPECT_EQ(ops::qmv::detail::byte_mask(0b1111u), 0xffffffffu);
}

}  // namespace
