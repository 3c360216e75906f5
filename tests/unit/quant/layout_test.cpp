// Block layouts, hand-computed dequant tables, the rounding helpers and the format table.
// Expected values here are worked out by hand from ggml's format definitions (ds4-model §10),
// never produced by the code under test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>

#include "ordo/quant/format_list.hpp"
#include "ordo/quant/formats.hpp"
#include "ordo/quant/q8_k.hpp"
#include "ordo/quant/rounding.hpp"

namespace q = ordo::quant;

// ---- byte layout: sizes and field offsets of ggml-common.h ---------------------------------------
static_assert(sizeof(q::q8_0::block) == 34 && offsetof(q::q8_0::block, qs) == 2);
static_assert(sizeof(q::mxfp4::block) == 17 && offsetof(q::mxfp4::block, qs) == 1);
static_assert(sizeof(q::q4_k::block) == 144 && offsetof(q::q4_k::block, dmin) == 2 &&
              offsetof(q::q4_k::block, scales) == 4 && offsetof(q::q4_k::block, qs) == 16);
static_assert(sizeof(q::q2_k::block) == 84 && offsetof(q::q2_k::block, qs) == 16 &&
              offsetof(q::q2_k::block, d) == 80 && offsetof(q::q2_k::block, dmin) == 82);
static_assert(sizeof(q::iq2_xxs::block) == 66 && offsetof(q::iq2_xxs::block, qs) == 2);
static_assert(sizeof(q::q8_k::block) == 292 && offsetof(q::q8_k::block, qs) == 4 &&
              offsetof(q::q8_k::block, bsums) == 260);
static_assert(sizeof(q::q8_32::block) == 36);
static_assert(alignof(q::mxfp4::block) == 1 && alignof(q::q8_0::block) == 2 && alignof(q::iq2_xxs::block) == 2);

// ggml type ids (ggml.h enum ggml_type).
static_assert(q::f32::ggml_type == 0 && q::f16::ggml_type == 1 && q::q8_0::ggml_type == 8 &&
              q::q2_k::ggml_type == 10 && q::q4_k::ggml_type == 12 && q::iq2_xxs::ggml_type == 16 &&
              q::bf16::ggml_type == 30 && q::mxfp4::ggml_type == 39 && q::q8_k::ggml_type == 15);

static_assert(q::quant_format<q::f32> && q::quant_format<q::f16> && q::quant_format<q::bf16> &&
              q::quant_format<q::q8_0> && q::quant_format<q::mxfp4> && q::quant_format<q::q4_k> &&
              q::quant_format<q::q2_k> && q::quant_format<q::iq2_xxs>);
static_assert(q::activation_format<q::act_f32> && q::activation_format<q::q8_32> &&
              q::activation_format<q::q8_k>);
static_assert(q::blocks_per_dot<q::f16> == 32 && q::blocks_per_dot<q::q8_0> == 1 && q::blocks_per_dot<q::q4_k> == 1);
static_assert(q::integer_dot_format<q::q8_0> && q::integer_dot_format<q::mxfp4> && q::integer_dot_format<q::q4_k> &&
              q::integer_dot_format<q::q2_k> && q::integer_dot_format<q::iq2_xxs>);
static_assert(!q::integer_dot_format<q::f16> && !q::integer_dot_format<q::f32> && !q::integer_dot_format<q::bf16>);
static_assert(q::q8_0::int_chunks == 1 && q::mxfp4::int_chunks == 1 && q::q4_k::int_chunks == 8 &&
              q::q2_k::int_chunks == 8 && q::iq2_xxs::int_chunks == 8);
// A type that lacks the surface is rejected.
struct not_a_format {
  static constexpr int block_elems = 32;
};
static_assert(!q::quant_format<not_a_format>);

TEST(quant_formats, table_lookup_by_id_and_name) {
  EXPECT_EQ(q::format_table.size(), 8u);
  const auto* m = q::find_format(39u);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name, "mxfp4");
  EXPECT_EQ(m->block_elems, 32u);
  EXPECT_EQ(m->block_bytes, 17u);
  const auto* k = q::find_format(std::string_view{"q2_k"});
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->ggml_type, 10u);
  EXPECT_EQ(q::find_format(2u), nullptr);  // Q4_0: not supported
  EXPECT_EQ(q::find_format(std::string_view{"q4_0"}), nullptr);
  EXPECT_EQ(q::row_bytes(*q::find_format(12u), 4096), 16u * 144u);
  EXPECT_EQ(q::row_bytes(*q::find_format(12u), 100), 0u);
  EXPECT_EQ(q::row_bytes(*q::find_format(1u), 7), 14u);
  static_assert(decltype(boost::hana::length(q::format_tags))::value == 8);
}

// ---- rounding helpers ---------------------------------------------------------------------------
TEST(quant_rounding, nearest_even_ties_and_range) {
  EXPECT_EQ(q::nearest_even(0.5f), 0);
  EXPECT_EQ(q::nearest_even(1.5f), 2);
  EXPECT_EQ(q::nearest_even(2.5f), 2);
  EXPECT_EQ(q::nearest_even(-2.5f), -2);
  EXPECT_EQ(q::nearest_even(-3.5f), -4);
  EXPECT_EQ(q::nearest_even(0.49999997f), 0);
  EXPECT_EQ(q::nearest_even(126.5f), 126);
  EXPECT_EQ(q::nearest_even(-127.49f), -127);
  EXPECT_EQ(q::nearest_even(4194303.0f), 4194303);
  EXPECT_EQ(q::nearest_even(-4194303.0f), -4194303);
  // Compare with ggml's nearest_int (add 1.5·2^23 so the FPU rounds, read the mantissa), written
  // out here, on a grid of awkward values including every quarter-integer tie.
  const auto ggml_nearest_int = [](float v) {
    const volatile float shifted = v + 12582912.0f;  // volatile: keep the add as written
    std::int32_t i;
    const float s = shifted;
    std::memcpy(&i, &s, sizeof i);
    return (i & 0x007fffff) - 0x00400000;
  };
  for (int i = -300000; i <= 300000; ++i) {
    const float x = static_cast<float>(i) * 0.0625f + 0.001f * static_cast<float>(i % 7);
    ASSERT_EQ(q::nearest_even(x), ggml_nearest_int(x)) << x;
  }
}

TEST(quant_rounding, nearest_away_matches_roundf) {
  EXPECT_EQ(q::nearest_away(0.5f), 1);
  EXPECT_EQ(q::nearest_away(-0.5f), -1);
  EXPECT_EQ(q::nearest_away(2.5f), 3);
  EXPECT_EQ(q::nearest_away(0.49999997f), 0);
  EXPECT_EQ(q::nearest_away(-0.0f), 0);
  for (int i = -300000; i <= 300000; ++i) {
    const float x = static_cast<float>(i) * 0.0625f + 0.001f * static_cast<float>(i % 7);
    ASSERT_EQ(q::nearest_away(x), static_cast<int>(std::roundf(x))) << x;
  }
}

// ---- hand-computed dequant tables ----------------------------------------------------------------
TEST(quant_dequant, q8_0_table) {
  q::q8_0::block b{};
  b.d = 0x3800;  // 0.5
  for (int i = 0; i < 32; ++i) b.qs[i] = static_cast<std::int8_t>(i - 16);
  b.qs[31] = -128;
  float y[32];
  q::q8_0::dequant(b, y);
  EXPECT_EQ(y[0], -8.0f);
  EXPECT_EQ(y[16], 0.0f);
  EXPECT_EQ(y[17], 0.5f);
  EXPECT_EQ(y[30], 7.0f);
  EXPECT_EQ(y[31], -64.0f);
}

TEST(quant_dequant, mxfp4_table_split_half_nibbles) {
  q::mxfp4::block b{};
  b.e = 128;      // half scale 2^0: values are the doubled E2M1 integers
  b.qs[0] = 0x71;  // element 0: code 1 (0.5·2 = 1), element 16: code 7 (6·2 = 12)
  b.qs[1] = 0xf8;  // element 1: code 8 (-0), element 17: code 15 (-12)
  b.qs[2] = 0x5c;  // element 2: code 12 (-2·2 = -4), element 18: code 5 (3·2 = 6)
  float y[32];
  q::mxfp4::dequant(b, y);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[16], 12.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_FALSE(std::signbit(y[1]));  // ggml multiplies the int8 0, so -0 code gives +0
  EXPECT_EQ(y[17], -12.0f);
  EXPECT_EQ(y[2], -4.0f);
  EXPECT_EQ(y[18], 6.0f);
  EXPECT_EQ(y[3], 0.0f);

  b.e = 0;  // 2^-128 (subnormal), ggml's special case
  q::mxfp4::dequant(b, y);
  EXPECT_EQ(y[16], std::ldexp(12.0f, -128));
  b.e = 255;  // 2^127: 12·2^127 overflows to +inf, 1·2^127 does not
  q::mxfp4::dequant(b, y);
  EXPECT_EQ(y[0], std::ldexp(1.0f, 127));
  EXPECT_TRUE(std::isinf(y[16]));

  for (int n = 0; n < 16; ++n)  // kvalue == 2·E2M1 value
    EXPECT_EQ(static_cast<float>(q::mxfp4::kvalue(static_cast<std::uint8_t>(n))),
              2.0f * ordo::numeric::e2m1_to_f32(static_cast<std::uint8_t>(n)));
}

TEST(quant_dequant, q4_k_table) {
  q::q4_k::block b{};
  b.d = 0x3c00;     // 1.0
  b.dmin = 0x3800;  // 0.5
  b.scales[0] = 0x83;  // sc0 = 3, top bits 2 → high bits of sc4
  b.scales[4] = 0x02;  // m0 = 2, top bits 0 → high bits of m4
  b.scales[1] = 0x01;  // sc1 = 1
  b.scales[5] = 0x04;  // m1 = 4
  b.scales[8] = 0x21;  // sc4 = 1 | 2<<4 = 33, m4 = 2 | 0<<4 = 2
  b.qs[0] = 0x5a;      // element 0: 10 (sub-block 0), element 32: 5 (sub-block 1)
  b.qs[64] = 0x07;     // element 128: 7 (sub-block 4), element 160: 0 (sub-block 5)
  float y[256];
  q::q4_k::dequant(b, y);
  EXPECT_EQ(y[0], 3.0f * 10.0f - 0.5f * 2.0f);   // 29
  EXPECT_EQ(y[1], -1.0f);                         // code 0: only the min
  EXPECT_EQ(y[32], 1.0f * 5.0f - 0.5f * 4.0f);   // 3
  EXPECT_EQ(y[128], 33.0f * 7.0f - 0.5f * 2.0f);  // 230
  EXPECT_EQ(y[160], 0.0f);                        // sub-block 5: sc5 = m5 = 0
}

TEST(quant_dequant, q2_k_table) {
  q::q2_k::block b{};
  b.d = 0x3c00;     // 1.0
  b.dmin = 0x3400;  // 0.25
  b.scales[0] = 0x32;  // sc 2, m 3
  b.scales[2] = 0x11;  // sc 1, m 1
  b.scales[4] = 0x05;  // sc 5, m 0
  b.scales[6] = 0xf0;  // sc 0, m 15
  b.scales[1] = 0x01;  // sub-block 1 (elements 16..31): sc 1, m 0
  b.scales[8] = 0x03;  // sub-block 8 (elements 128..143): sc 3, m 0
  b.qs[0] = 0xe4;   // 2-bit fields 0,1,2,3 → elements 0, 32, 64, 96
  b.qs[16] = 0x03;  // element 16: 3
  b.qs[32] = 0x02;  // element 128: 2
  float y[256];
  q::q2_k::dequant(b, y);
  EXPECT_EQ(y[0], 0.0f * 2.0f - 0.75f);
  EXPECT_EQ(y[32], 1.0f * 1.0f - 0.25f);
  EXPECT_EQ(y[64], 2.0f * 5.0f);
  EXPECT_EQ(y[96], 3.0f * 0.0f - 3.75f);
  EXPECT_EQ(y[16], 3.0f);
  EXPECT_EQ(y[128], 6.0f);
}

TEST(quant_dequant, iq2_xxs_table) {
  q::iq2_xxs::block b{};
  b.d = 0x3c00;  // 1.0
  // Sub-block 0: grid indices 0, 1, 2, 255; sign index 1 for group 0 (→ 0x81: elements 0 and 7
  // negative), 0 for the others; scale ls = 3 → db = (0.5 + 3)/4 = 0.875.
  const std::uint32_t a0 = 0u | 1u << 8 | 2u << 16 | 255u << 24;
  const std::uint32_t a1 = 1u | 3u << 28;
  b.qs[0] = static_cast<std::uint16_t>(a0);
  b.qs[1] = static_cast<std::uint16_t>(a0 >> 16);
  b.qs[2] = static_cast<std::uint16_t>(a1);
  b.qs[3] = static_cast<std::uint16_t>(a1 >> 16);
  float y[256];
  q::iq2_xxs::dequant(b, y);
  // grid[0] = 0x0808080808080808, grid[1] = 0x080808080808082b, grid[255] = 0x2b2b2b1908081908
  EXPECT_EQ(y[0], -7.0f);
  for (int j = 1; j < 7; ++j) EXPECT_EQ(y[j], 7.0f) << j;
  EXPECT_EQ(y[7], -7.0f);
  EXPECT_EQ(y[8], 43.0f * 0.875f);
  EXPECT_EQ(y[9], 7.0f);
  EXPECT_EQ(y[24], 7.0f);
  EXPECT_EQ(y[25], 25.0f * 0.875f);
  EXPECT_EQ(y[31], 43.0f * 0.875f);
  // Sub-block 1 is all zero bits: grid[0] with ls = 0 → 8·0.125 = 1.
  EXPECT_EQ(y[32], 1.0f);
}

TEST(quant_dequant, iq2_signs_is_even_parity_table) {
  // First and last rows of ggml's ksigns_iq2xs.
  const int head[8] = {0, 129, 130, 3, 132, 5, 6, 135};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(q::iq2_signs(static_cast<std::uint32_t>(i)), head[i]);
  EXPECT_EQ(q::iq2_signs(127), 255);
  EXPECT_EQ(q::iq2_signs(126), 126);
  for (std::uint32_t i = 0; i < 128; ++i) EXPECT_EQ(__builtin_popcount(q::iq2_signs(i)) % 2, 0) << i;
}

TEST(quant_dequant, float_formats) {
  float y;
  q::f16::dequant(q::f16::block{0xc500}, &y);  // -5.0
  EXPECT_EQ(y, -5.0f);
  q::bf16::dequant(q::bf16::block{0x3fc0}, &y);  // 1.5
  EXPECT_EQ(y, 1.5f);
  q::f32::dequant(q::f32::block{-0.25f}, &y);
  EXPECT_EQ(y, -0.25f);
}

// ---- activation quantizers, hand examples ------------------------------------------------------
TEST(quant_activation, q8_32_hand_example) {
  float x[32] = {};
  x[0] = 127.0f;  // amax: d = 1, id = 1
  x[1] = -63.5f;  // tie → even: -64
  x[2] = 0.5f;    // tie → 0
  x[3] = 1.5f;    // tie → 2
  x[4] = 2.5f;    // tie → 2
  x[5] = -126.6f;
  q::q8_32::block b;
  q::q8_32::quantize(x, b);
  EXPECT_EQ(b.d, 1.0f);
  EXPECT_EQ(b.qs[0], 127);
  EXPECT_EQ(b.qs[1], -64);
  EXPECT_EQ(b.qs[2], 0);
  EXPECT_EQ(b.qs[3], 2);
  EXPECT_EQ(b.qs[4], 2);
  EXPECT_EQ(b.qs[5], -127);
  EXPECT_EQ(b.qs[6], 0);

  float z[32] = {};
  q::q8_32::quantize(z, b);
  EXPECT_EQ(b.d, 0.0f);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(b.qs[i], 0);
}

TEST(quant_activation, q8_k_hand_example) {
  float x[256] = {};
  x[10] = -2.0f;   // the signed max |x|: iscale = -127/-2 = 63.5, d = 1/63.5
  x[11] = 1.0f;    // 63.5 → 64 (tie to even)
  x[12] = 0.5f;    // 31.75 → 32
  x[200] = 2.0f;   // same |x| as x[10] but later: not the max; 127
  q::q8_k::block b;
  q::q8_k::quantize(x, b);
  EXPECT_EQ(b.d, 1.0f / 63.5f);
  EXPECT_EQ(b.qs[10], -127);
  EXPECT_EQ(b.qs[11], 64);
  EXPECT_EQ(b.qs[12], 32);
  EXPECT_EQ(b.qs[200], 127);
  EXPECT_EQ(b.bsums[0], -127 + 64 + 32);
  EXPECT_EQ(b.bsums[12], 127);
  EXPECT_EQ(b.bsums[1], 0);

  x[10] = 4.0f;  // a positive max flips the signs: iscale = -31.75
  q::q8_k::quantize(x, b);
  EXPECT_EQ(b.qs[10], -127);
  EXPECT_EQ(b.qs[11], -32);    // -31.75 → -32
  EXPECT_EQ(b.qs[12], -16);    // -15.875 → -16
  EXPECT_EQ(b.qs[200], -64);   // -63.5 → -64
  EXPECT_EQ(b.d, 1.0f / (-127.0f / 4.0f));
}
