// The int8-block decoders of the streaming kernels (include/ordo/ops/qmv/int8_block_decoders.hpp),
// host-compiled with gpu/byte_ops.hpp's prmt and funnel-shift: for random blocks at every byte
// offset the decoder accepts, the scale is the format's own and the decoder's integer dot of its
// words against the arranged activation is the format's dot_int (the portable byte loop of
// quant/<format>.hpp), so dot_scale gets the same operands on the device as on the CPU.
#include "ordo/ops/qmv/int8_block_decoders.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ordo/gpu/intrinsics.hpp"
#include "ordo/quant/q8_32.hpp"
#include "ordo/quant/random_block.hpp"
#include "ordo/quant/random_draws.hpp"

namespace {

using namespace ordo;

/// Blocks (of `blocks` random ones, each at every offset in [0, 16) the decoder accepts) whose
/// decoded scale or integer dot differs from the format's.
template <class D>
int mismatching_blocks(int blocks) {
  using F = typename D::format;
  quant::splitmix64 rng{0xdec0u + F::ggml_type};
  int mismatches = 0;
  for (int n = 0; n < blocks; ++n) {
    typename F::block w = quant::random_block<F>(rng, 1.0f);
    if constexpr (std::is_same_v<F, quant::mxfp4>)  // the scale's extremes: the subnormal and the infinite one
      if (n % 7 == 0) w.e = std::uint8_t(n % 2 == 0 ? 0 : 255);
    quant::q8_32::block x{};
    x.d = 0.25f;
    for (auto& q : x.qs) q = static_cast<std::int8_t>(rng() >> 56);  // the whole int8 range, −128 included
    const std::int32_t want = F::dot_int_chunk(w, x, 0);
    const float want_scale = F::dot_scale(w, 1.0f, 1);
    for (int o = 0; o < 16; ++o) {
      if (!D::row_bytes_ok(std::size_t(o))) continue;  // an offset no row of the kernel gives
      alignas(16) std::byte stage[64];
      for (auto& b : stage) b = std::byte(rng() >> 56);  // stale bytes around the block
      std::memcpy(stage + o, &w, sizeof w);
      float scale = 0.0f;
      std::uint32_t q[D::words];
      D::decode(stage, o, scale, q);
      std::uint32_t xw[8];
      std::memcpy(xw, x.qs, sizeof xw);
      D::arrange_x(xw);
      const std::int32_t isum = D::dot(q, xw);
      mismatches += isum != want || std::bit_cast<std::uint32_t>(scale) != std::bit_cast<std::uint32_t>(want_scale);
    }
  }
  return mismatches;
}

TEST(int8_block_decoders, q8_0_equals_dot_int) { EXPECT_EQ(mismatching_blocks<ops::qmv::q8_0_decoder>(3000), 0); }
TEST(int8_block_decoders, mxfp4_equals_dot_int) { EXPECT_EQ(mismatching_blocks<ops::qmv::mxfp4_decoder>(3000), 0); }
TEST(int8_block_decoders, mxfp4_split_sign_equals_dot_int) {
  EXPECT_EQ(mismatching_blocks<ops::qmv::mxfp4_split_decoder>(3000), 0);
}
TEST(int8_block_decoders, streaming_kernels_pick_the_split_decoder_at_few_rows) {
  EXPECT_TRUE((std::is_same_v<ops::qmv::int8_decoder_at<quant::mxfp4, 2>, ops::qmv::mxfp4_split_decoder>));
  EXPECT_TRUE((std::is_same_v<ops::qmv::int8_decoder_at<quant::mxfp4, 3>, ops::qmv::mxfp4_decoder>));
  EXPECT_TRUE((std::is_same_v<ops::qmv::int8_decoder_at<quant::q8_0, 1>, ops::qmv::q8_0_decoder>));
}

TEST(int8_block_decoders, byte_perm_is_prmt) {
  // copy mode picks any of the 8 bytes; bit 3 of a selector nibble replicates the byte's sign
  EXPECT_EQ(gpu::byte_perm(0x33221100u, 0x77665544u, 0x7531u), 0x77553311u);
  EXPECT_EQ(gpu::byte_perm(0x80017f00u, 0u, 0xba98u), 0xff000000u);
  EXPECT_EQ(gpu::byte_perm(0x80017f00u, 0u, 0x3210u), 0x80017f00u);
  EXPECT_EQ(gpu::funnel_shift_r(0x44332211u, 0x88776655u, 8), 0x55443322u);
}

// Kept mutation checks: decoders wrong in one detail each, which the comparison must catch.
struct mxfp4_unarranged : ops::qmv::mxfp4_decoder {  // the activation left in element order
  static void arrange_x(std::uint32_t (&)[8]) {}
};
struct mxfp4_sign_dropped : ops::qmv::mxfp4_decoder {  // bit 3 of each code ignored
  static void decode(const std::byte* stage, int o, float& scale, std::uint32_t (&q)[8]) {
    alignas(16) std::byte copy[64];
    std::memcpy(copy, stage, sizeof copy);
    for (int j = 0; j < 16; ++j) copy[o + 1 + j] &= std::byte{0x77};
    ops::qmv::mxfp4_decoder::decode(copy, o, scale, q);
  }
};
struct mxfp4_split_negatives_added : ops::qmv::mxfp4_split_decoder {  // the sign never applied
  static std::int32_t dot(const std::uint32_t (&q)[words], const std::uint32_t (&x)[8]) {
    return ops::qmv::dot_words(q, x) + ops::qmv::dot_words(q + 8, x);
  }
};
struct q8_0_word_misaligned : ops::qmv::q8_0_decoder {  // the codes read from the wrong half word
  static void decode(const std::byte* stage, int o, float& scale, std::uint32_t (&q)[8]) {
    ops::qmv::q8_0_decoder::decode(stage, o ^ 2, scale, q);
  }
};
TEST(int8_block_decoders, mutant_mxfp4_unarranged_is_caught) { EXPECT_GT(mismatching_blocks<mxfp4_unarranged>(100), 1000); }
TEST(int8_block_decoders, mutant_mxfp4_sign_dropped_is_caught) { EXPECT_GT(mismatching_blocks<mxfp4_sign_dropped>(100), 1000); }
TEST(int8_block_decoders, mutant_mxfp4_split_negatives_added_is_caught) {
  EXPECT_GT(mismatching_blocks<mxfp4_split_negatives_added>(100), 1000);
}
TEST(int8_block_decoders, mutant_q8_0_misaligned_is_caught) { EXPECT_GT(mismatching_blocks<q8_0_word_misaligned>(100), 500); }

}  // namespace
