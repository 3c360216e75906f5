// The host-compiled parts of the int8 mma qmv kernel (include/ordo/ops/qmv/int8_mma_parts.hpp):
//   - the ls32 butterfly cut into S warp subtrees (leaves ≡ w mod S) and then the roots' adds is,
//     bit for bit, order::combine<lane_strided> of the 32 lane values, for every S the kernel may
//     be built with; lane values are full-mantissa floats of mixed sign and magnitude, so a wrong
//     pairing rounds differently, and the test shows that it would (a contiguous cut fails);
//   - the biased integer the mma returns converts to float(isum) exactly over the dots' range;
//   - the Q8_0 loader gives thread-in-group q of every block of a window the block's scale bits and
//     its codes 4q..4q+3 and 16+4q..16+4q+3 as the mma A-fragment words, and a warp's leaves
//     share its first leaf's word layout up to a constant.
#include "ordo/ops/qmv/int8_mma_parts.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "ordo/order/combine.hpp"
#include "ordo/quant/random_block.hpp"
#include "ordo/quant/random_draws.hpp"

namespace {

using namespace ordo;
using ops::qmv::int8_mma_tree::add_roots;
using ops::qmv::int8_mma_tree::add_subtree;

/// 32 lane values: uniform mantissas scaled by 2^[-12, 12], either sign.
order::host_lanes random_lanes(quant::splitmix64& rng) {
  order::host_lanes v{};
  for (auto& x : v.v) x = std::ldexp(quant::uniform_pm1(rng), int(rng() % 25) - 12);
  return v;
}

/// The sum of the 32 lanes cut into S subtrees: warp w's leaves are lanes w + S·m (strided, the
/// kernel's cut) or, for the counter-check, lanes w·(32/S) + m (contiguous).
template <int S>
float cut_sum(const order::host_lanes& lanes, bool strided) {
  constexpr int n = 32 / S;
  float roots[S];
  for (int w = 0; w < S; ++w) {
    float leaves[n];
    for (int m = 0; m < n; ++m) leaves[m] = lanes.v[strided ? w + S * m : w * n + m];
    add_subtree(leaves);
    roots[w] = leaves[0];
  }
  return add_roots(roots);
}

template <int S>
void expect_cut_is_the_butterfly() {
  quant::splitmix64 rng{0x5eed0000u + S};
  int differing = 0, contiguous_differing = 0;
  for (int t = 0; t < 2000; ++t) {
    const order::host_lanes lanes = random_lanes(rng);
    order::host_lanes combined = lanes;
    const float want = order::combine<order::lane_strided>(combined);
    differing += std::bit_cast<std::uint32_t>(cut_sum<S>(lanes, true)) != std::bit_cast<std::uint32_t>(want);
    contiguous_differing += std::bit_cast<std::uint32_t>(cut_sum<S>(lanes, false)) != std::bit_cast<std::uint32_t>(want);
  }
  EXPECT_EQ(differing, 0) << "S = " << S;
  // Teeth: the inputs tell tree shapes apart (S = 32 has one-leaf subtrees, where both cuts agree).
  if constexpr (S < 32) EXPECT_GT(contiguous_differing, 100) << "S = " << S;
}

TEST(int8_mma_parts, subtrees_then_roots_are_the_ls32_butterfly) {
  expect_cut_is_the_butterfly<2>();
  expect_cut_is_the_butterfly<4>();
  expect_cut_is_the_butterfly<8>();
  expect_cut_is_the_butterfly<16>();
  expect_cut_is_the_butterfly<32>();
}

TEST(int8_mma_parts, q8_0_loader_gives_each_thread_its_fragment_words) {
  quant::splitmix64 rng{0xf7a9u};
  int mismatches = 0;
  for (int t = 0; t < 50; ++t) {
    quant::q8_0::block blocks[32];
    for (auto& b : blocks) b = quant::random_block<quant::q8_0>(rng, 1.0f);
    alignas(16) std::byte window[32 * sizeof(quant::q8_0::block) + 16];
    std::memcpy(window, blocks, 32 * sizeof(quant::q8_0::block));
    for (int i = 0; i < 32; ++i) {
      for (int q = 0; q < 4; ++q) {
        std::uint32_t lo = 0, hi = 0;
        std::uint16_t d = 0;
        using ops::qmv::int8_mma_tree::block_words;
        const auto* row = reinterpret_cast<const std::uint32_t*>(window);
        const block_words at = block_words::of(i);
        ops::qmv::int8_mma_tree::load_block_words(row + at.code_word + q, row[at.scale_word], at.sel, at.scale_shift, lo, hi, d);
        std::uint32_t want_lo = 0, want_hi = 0;
        std::memcpy(&want_lo, blocks[i].qs + 4 * q, 4);
        std::memcpy(&want_hi, blocks[i].qs + 16 + 4 * q, 4);
        mismatches += lo != want_lo || hi != want_hi || d != blocks[i].d;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// A warp's leaves are w + S·m (S even): their words are leaf w's moved by 17·S·m / 2 words, with
// leaf w's byte_perm and shift, as the kernel computes them.
TEST(int8_mma_parts, a_warps_leaves_share_the_first_leafs_layout) {
  using ops::qmv::int8_mma_tree::block_words;
  for (int S : {2, 4, 8, 16})
    for (int w = 0; w < S; ++w)
      for (int m = 0; w + S * m < 32; ++m) {
        const block_words first = block_words::of(w), at = block_words::of(w + S * m);
        EXPECT_EQ(at.code_word, first.code_word + 17 * S * m / 2);
        EXPECT_EQ(at.scale_word, first.scale_word + 17 * S * m / 2);
        EXPECT_EQ(at.sel, first.sel);
        EXPECT_EQ(at.scale_shift, first.scale_shift);
      }
}

// Every integer dot of 32 int8 pairs (|isum| <= 32·128·128 = 2^19), and past it to ±(2^22 − 1):
// the biased route gives float(isum)'s bits.
TEST(int8_mma_parts, biased_integer_is_the_float_conversion) {
  using ops::qmv::int8_mma_tree::biased_zero;
  using ops::qmv::int8_mma_tree::float_of_biased;
  int mismatches = 0;
  for (std::int32_t isum = -(1 << 22) + 1; isum < (1 << 22); ++isum)
    mismatches += std::bit_cast<std::uint32_t>(float_of_biased(biased_zero + isum)) !=
                  std::bit_cast<std::uint32_t>(static_cast<float>(isum));
  EXPECT_EQ(mismatches, 0);
  // Teeth: one past the range the route is exact on, it is not the conversion.
  EXPECT_NE(float_of_biased(biased_zero + (1 << 22) + 1), static_cast<float>((1 << 22) + 1));
}

}  // namespace
