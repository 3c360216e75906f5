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

/// Chunks of `blocks` random blocks whose packed integer part (decoder Dec) differs from F's own.
template <class F, class Dec = ops::qmv::int_chunk_decoder<F>>
int mismatching_chunks(int blocks) {
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
      Dec::decode(w, c, words);
      const auto got = Dec::dot(w, c, words, a);
      const auto want = F::dot_int_chunk(w, a, c);
      mismatches += std::memcmp(&got, &want, sizeof got) != 0;
    }
  }
  return mismatches;
}

TEST(int_chunk_decoders, iq2_xxs_equals_dot_int_chunk) { EXPECT_EQ(mismatching_chunks<quant::iq2_xxs>(4000), 0); }
TEST(int_chunk_decoders, q2_k_equals_dot_int_chunk) { EXPECT_EQ(mismatching_chunks<quant::q2_k>(4000), 0); }

// Kept mutation checks: decoders that are wrong in one detail each, which the comparison above
// must catch (a comparison that passed them would prove nothing).
struct iq2_signs_ignored : ops::qmv::int_chunk_decoder<quant::iq2_xxs> {
  static void decode(const F::block& b, int ib, std::uint32_t (&w)[8]) {
    const std::uint32_t a0 = F::index_word(b, ib);
    for (int l = 0; l < 4; ++l) {
      const std::uint64_t g = quant::iq2xxs_grid_at(int((a0 >> (8 * l)) & 0xffu));
      w[2 * l] = std::uint32_t(g);
      w[2 * l + 1] = std::uint32_t(g >> 32);
    }
  }
};
struct q2_k_shift_off_by_one_chunk : ops::qmv::int_chunk_decoder<quant::q2_k> {
  static void decode(const F::block& b, int c, std::uint32_t (&w)[8]) {
    ops::qmv::int_chunk_decoder<quant::q2_k>::decode(b, c ^ 1, w);
  }
};
TEST(int_chunk_decoders, mutant_iq2_signs_ignored_is_caught) {
  EXPECT_GT((mismatching_chunks<quant::iq2_xxs, iq2_signs_ignored>(200)), 100);
}
TEST(int_chunk_decoders, mutant_q2_k_wrong_shift_is_caught) {
  EXPECT_GT((mismatching_chunks<quant::q2_k, q2_k_shift_off_by_one_chunk>(200)), 100);
}

TEST(int_chunk_decoders, byte_mask_spreads_four_bits) {
  EXPECT_EQ(ops::qmv::detail::byte_mask(0b0000u), 0x00000000u);
  EXPECT_EQ(ops::qmv::detail::byte_mask(0b0101u), 0x00ff00ffu);
  EXPECT_EQ(ops::qmv::detail::byte_mask(0b1010u), 0xff00ff00u);
  EXPECT_EQ(ops::qmv::detail::byte_mask(0b1111u), 0xffffffffu);
}

}  // namespace
