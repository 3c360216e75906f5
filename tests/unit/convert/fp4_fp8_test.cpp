// The two checkpoint decoders. FP4 → MXFP4 must be exactly lossless: for every E2M1 code in every
// position and every scale byte, ggml's MXFP4 dequant (quant::mxfp4, doubled E2M1 × 2^(e−128)) of
// the repacked block equals the source's E2M1 × 2^(e−127), and both equal a value computed here in
// double from the nibble table of ds4-model §8.5. FP8: E4M3 × 128×128 E8M0 block scales.
#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "convert/fp4_mxfp4.hpp"
#include "convert/fp8_blocks.hpp"

namespace ordo::convert {
namespace {

// ds4-model §8.5 nibble table.
constexpr double kE2M1[16] = {0, .5, 1, 1.5, 2, 3, 4, 6, -0.0, -.5, -1, -1.5, -2, -3, -4, -6};

double fp4_reference(std::uint8_t code, std::uint8_t e) {
  const double scale = e == 0 ? std::ldexp(1.0, -127) : std::ldexp(1.0, static_cast<int>(e) - 127);
  return kE2M1[code & 15] * scale;
}

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(Fp4ToMxfp4, OneHandPackedBlockHasTheSplitHalfLayout) {
  // Elements k = 0..31 get code k % 16; sequential pairs: byte j = code(2j) | code(2j+1) << 4.
  std::uint8_t packed[16];
  for (int j = 0; j < 16; ++j) packed[j] = static_cast<std::uint8_t>(((2 * j) % 16) | (((2 * j + 1) % 16) << 4));
  const std::uint8_t scale = 130;
  quant::mxfp4::block b{};
  repack_fp4_row_to_mxfp4(packed, &scale, 32, &b);
  EXPECT_EQ(b.e, 130);
  // Split-half: qs[j] low nibble = element j (code j), high nibble = element j+16 (code j).
  for (int j = 0; j < 16; ++j) EXPECT_EQ(b.qs[j], static_cast<std::uint8_t>(j | (j << 4))) << j;
}

TEST(Fp4ToMxfp4, RepackIsLosslessForEveryCodePositionAndScale) {
  // Every scale byte but 0xff (E8M0 NaN, refused by the converter); each block holds codes
  // (k + shift) % 16 so that every code visits every position over 16 shifts.
  for (int e = 0; e < 255; ++e) {
    for (int shift = 0; shift < 16; ++shift) {
      std::uint8_t packed[16];
      for (int j = 0; j < 16; ++j)
        packed[j] = static_cast<std::uint8_t>(((2 * j + shift) % 16) | (((2 * j + 1 + shift) % 16) << 4));
      const auto scale = static_cast<std::uint8_t>(e);
      quant::mxfp4::block b{};
      repack_fp4_row_to_mxfp4(packed, &scale, 32, &b);
      float via_mxfp4[32], via_source[32];
      quant::mxfp4::dequant(b, via_mxfp4);
      dequant_fp4_row(packed, &scale, 32, via_source);
      for (int k = 0; k < 32; ++k) {
        const auto code = static_cast<std::uint8_t>((k + shift) % 16);
        const auto want = static_cast<float>(fp4_reference(code, scale));
        ASSERT_EQ(bits(via_source[k]), bits(want)) << "e=" << e << " k=" << k << " code=" << int(code);
        // -0 (code 8) is 0 in ggml's integer table; compare values there, bits elsewhere.
        if (code == 8) ASSERT_EQ(via_mxfp4[k], 0.0f);
        else ASSERT_EQ(bits(via_mxfp4[k]), bits(want)) << "e=" << e << " k=" << k << " code=" << int(code);
      }
    }
  }
}

TEST(Fp4ToMxfp4, RandomRowsOfManyBlocks) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255), sc(0, 254);
  const int cols = 32 * 9;
  std::vector<std::uint8_t> packed(cols / 2), scales(cols / 32);
  for (auto& p : packed) p = static_cast<std::uint8_t>(byte(rng));
  for (auto& s : scales) s = static_cast<std::uint8_t>(sc(rng));
  std::vector<quant::mxfp4::block> blocks(cols / 32);
  repack_fp4_row_to_mxfp4(packed.data(), scales.data(), cols, blocks.data());
  for (int b = 0; b < cols / 32; ++b) {
    float v[32];
    quant::mxfp4::dequant(blocks[b], v);
    for (int k = 0; k < 32; ++k) {
      const int el = 32 * b + k;
      const auto code = static_cast<std::uint8_t>((packed[el / 2] >> (4 * (el % 2))) & 15);
      EXPECT_EQ(static_cast<double>(v[k]), fp4_reference(code, scales[b]) + 0.0) << el;
    }
  }
}

TEST(Fp8Blocks, E4M3DecodingFollowsTheSpec) {
  EXPECT_EQ(fp8_e4m3_value(0x38), 1.0f);      // exp 7, man 0
  EXPECT_EQ(fp8_e4m3_value(0x7e), 448.0f);    // largest
  EXPECT_EQ(fp8_e4m3_value(0x01), 0x1p-9f);   // smallest subnormal: man · 2^-9
  EXPECT_EQ(fp8_e4m3_value(0x07), 7 * 0x1p-9f);
  EXPECT_EQ(fp8_e4m3_value(0xb9), -1.125f);   // sign, exp 7, man 1
  EXPECT_EQ(fp8_e4m3_value(0x7f), 0.0f);      // NaN → 0 (ds4's quantizer)
  EXPECT_EQ(fp8_e4m3_value(0xff), 0.0f);
}

TEST(Fp8Blocks, EachElementUsesItsOwn128x128BlockScale) {
  // 260 × 300: three block rows and three block columns, the last ones partial.
  const std::int64_t rows = 260, cols = 300, sc = 3;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::uint8_t> codes(rows * cols);
  for (auto& c : codes) c = static_cast<std::uint8_t>(byte(rng));
  std::vector<float> scales(3 * sc);
  for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = std::ldexp(1.0f, static_cast<int>(i) - 4);
  // Decode rows [100, 260) only: the first row of the slice is inside block row 0.
  const std::int64_t first = 100, n = rows - first;
  std::vector<float> out(n * cols);
  dequant_fp8_rows(std::span(codes).subspan(first * cols), first, n, cols, scales, sc, out.data());
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::uint8_t code = codes[(first + r) * cols + c];
      const int e = (code >> 3) & 15, m = code & 7;
      double v = (e == 15 && m == 7) ? 0.0 : e == 0 ? m * std::ldexp(1.0, -9) : (1 + m / 8.0) * std::ldexp(1.0, e - 7);
      if (code & 0x80) v = -v;
      const double want = v * std::ldexp(1.0, static_cast<int>(((first + r) / 128) * sc + c / 128) - 4);
      ASSERT_EQ(static_cast<double>(out[r * cols + c]), want) << r << "," << c;
    }
}

}  // namespace
}  // namespace ordo::convert
