// The packed chunk decoders of the cooperative qmv arrangement (include/ordo/ops/qmv/
// int_chunk_decoders.hpp) against each format's own byte-loop dot_int_chunk, every chunk of
// random blocks (every grid index, sign pattern, scale and code occurs) and random activations.
#include "ordo/ops/qmv/int_chunk_decoders.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ordo/gpu/byte_ops.hpp"
#include "ordo/quant/random_block.hpp"
#include "ordo/quant/random_draws.hpp"

namespace {

using namespace ordo;

/// Chunks of `blocks` random blocks whose packed integer part (decoder Dec, reading `tables`;
/// Fused: its decode_dot, else decode then dot) differs from F's own.
template <class F, class Dec = ops::qmv::int_chunk_decoder<F>, class Tables = ops::qmv::format_tables, bool Fused = false>
int mismatching_chunks(int blocks, const Tables& tables = {}) {
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
      if constexpr (ops::qmv::is_iq2_copied<Tables>) Dec::decode(w, c, words, tables);
      else Dec::decode(w, c, words);
      std::uint32_t xw[8];
      ops::qmv::chunk_words(a, c, xw);
      auto got = Dec::dot(w, c, words, xw, a);
      if constexpr (Fused) {
        if constexpr (ops::qmv::is_iq2_copied<Tables>) got = Dec::decode_dot(w, c, xw, tables);
        else got = Dec::decode_dot(w, c, xw);
      }
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

/// IQ2_XXS tables copied as a kernel copies them into shared memory: filled by `threads` threads
/// (each taking every threads-th word), one of them optionally corrupted (a kept mutation check).
template <bool SignTable>
struct copied_iq2_tables {
  std::vector<std::uint64_t> words = std::vector<std::uint64_t>(ops::qmv::iq2_copied_tables<SignTable>::words);
  ops::qmv::iq2_copied_tables<SignTable> tables{};
  explicit copied_iq2_tables(int threads, int corrupt_word = -1) {
    for (int t = 0; t < threads; ++t) tables = ops::qmv::fill_iq2_tables<SignTable>(words.data(), t, threads);
    if (corrupt_word >= 0) words[std::size_t(corrupt_word)] ^= 0x0000ff0000000000ull;
  }
};
TEST(int_chunk_decoders, iq2_xxs_with_the_grid_copied_equals_dot_int_chunk) {
  const copied_iq2_tables<false> copy(3);
  EXPECT_EQ((mismatching_chunks<quant::iq2_xxs>(4000, copy.tables)), 0);
}
TEST(int_chunk_decoders, iq2_xxs_with_grid_and_signs_copied_equals_dot_int_chunk) {
  const copied_iq2_tables<true> copy(7);
  EXPECT_EQ((mismatching_chunks<quant::iq2_xxs>(4000, copy.tables)), 0);
}
TEST(int_chunk_decoders, mutant_corrupted_grid_copy_is_caught) {
  const copied_iq2_tables<false> copy(1, 17);  // grid row 17
  EXPECT_GT((mismatching_chunks<quant::iq2_xxs>(4000, copy.tables)), 0);
}
TEST(int_chunk_decoders, mutant_corrupted_sign_copy_is_caught) {
  const copied_iq2_tables<true> copy(1, 256 + 5);  // the masks of stored sign byte 5
  EXPECT_GT((mismatching_chunks<quant::iq2_xxs>(4000, copy.tables)), 0);
}

/// IQ2_XXS's fused decode_dot (one activation row; the streamed moe passes of one pair and qmv's
/// tier 1): the same integer as dot_int_chunk with the format's tables and with either copy.
TEST(int_chunk_decoders, iq2_xxs_decode_dot_equals_dot_int_chunk) {
  using dec = ops::qmv::int_chunk_decoder<quant::iq2_xxs>;
  static_assert(ops::qmv::has_decode_dot<dec>);
  static_assert(!ops::qmv::has_decode_dot<ops::qmv::int_chunk_decoder<quant::q2_k>>);
  EXPECT_EQ((mismatching_chunks<quant::iq2_xxs, dec, ops::qmv::format_tables, true>(4000)), 0);
  const copied_iq2_tables<false> grid(3);
  EXPECT_EQ((mismatching_chunks<quant::iq2_xxs, dec, ops::qmv::iq2_copied_tables<false>, true>(4000, grid.tables)), 0);
  const copied_iq2_tables<true> grid_and_signs(5);
  EXPECT_EQ((mismatching_chunks<quant::iq2_xxs, dec, ops::qmv::iq2_copied_tables<true>, true>(4000, grid_and_signs.tables)), 0);
}
// Kept mutation check: the fused form without its −m·x correction (each negative weight then
// counts −(g + 1)) must be caught.
struct iq2_decode_dot_uncorrected : ops::qmv::int_chunk_decoder<quant::iq2_xxs> {
  static int_sum decode_dot(const F::block& b, int ib, const std::uint32_t (&xw)[8]) {
    const std::uint32_t a0 = F::index_word(b, ib), a1 = F::sign_word(b, ib);
    std::int32_t flipped = 0;
    for (int l = 0; l < 4; ++l) {
      const std::uint64_t g = quant::iq2xxs_grid_at(int((a0 >> (8 * l)) & 0xffu));
      std::uint32_t m0 = 0, m1 = 0;
      ops::qmv::detail::iq2_sign_masks((a1 >> (7 * l)) & 127u, m0, m1);
      flipped = gpu::dot4_i8(std::int32_t(std::uint32_t(g) ^ m0), std::int32_t(xw[2 * l]), flipped);
      flipped = gpu::dot4_i8(std::int32_t(std::uint32_t(g >> 32) ^ m1), std::int32_t(xw[2 * l + 1]), flipped);
    }
    return (2 * F::scale(b, ib) + 1) * flipped;
  }
};
TEST(int_chunk_decoders, mutant_iq2_decode_dot_uncorrected_is_caught) {
  EXPECT_GT((mismatching_chunks<quant::iq2_xxs, iq2_decode_dot_uncorrected, ops::qmv::format_tables, true>(200)), 100);
}

/// The masks that iq2_signs(s)'s eight bits spell, byte by byte (the oracle: one byte per bit).
std::uint64_t masks_of_signs(std::uint32_t s) {
  const std::uint32_t signs = quant::iq2_signs(s);
  std::uint64_t m = 0;
  for (int j = 0; j < 8; ++j)
    if ((signs >> j) & 1u) m |= std::uint64_t{0xff} << (8 * j);
  return m;
}
TEST(int_chunk_decoders, iq2_sign_masks_match_iq2_signs_for_every_stored_byte) {
  for (std::uint32_t s = 0; s < 128; ++s) {
    std::uint32_t lo = 0, hi = 0;
    ops::qmv::detail::iq2_sign_masks(s, lo, hi);
    EXPECT_EQ((std::uint64_t{hi} << 32) | lo, masks_of_signs(s)) << "s = " << s;
  }
}
TEST(int_chunk_decoders, mutant_sign_masks_without_parity_is_caught) {
  int differ = 0;
  for (std::uint32_t s = 0; s < 128; ++s) {
    const std::uint32_t lo = gpu::byte_perm(s * 0x10204080u, 0u, 0xBA98u);
    const std::uint32_t hi = gpu::byte_perm(s * 0x00020408u, 0u, 0xBA98u);  // parity bit dropped
    differ += ((std::uint64_t{hi} << 32) | lo) != masks_of_signs(s);
  }
  EXPECT_EQ(differ, 64);  // every s of odd parity
}

}  // namespace
