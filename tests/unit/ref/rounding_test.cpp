// The reference's quantization simulations against hand-derived values (IEEE binary16, E4M3FN
// and E2M1 grids with ties to the even code) and the Hadamard transform's defining properties.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "ordo/numeric/conversions.hpp"
#include "ordo/ref/rounding.hpp"

namespace ordo::ref {
namespace {

TEST(RefRounding, CeilLog2IsExactAtPowersOfTwo) {
  EXPECT_EQ(ceil_log2(1.0), 0);
  EXPECT_EQ(ceil_log2(0.25), -2);
  EXPECT_EQ(ceil_log2(std::nextafter(1.0, 2.0)), 1);
  EXPECT_EQ(ceil_log2(1.0 / 448.0), -8);
  EXPECT_EQ(ceil_log2(3.0), 2);
}

TEST(RefRounding, F16NearestTiesToEven) {
  EXPECT_EQ(round_to_f16(1.0 / 3.0), 0.333251953125);           // 0x3555
  EXPECT_EQ(round_to_f16(1.0 + std::ldexp(1.0, -11)), 1.0);      // tie -> even mantissa 0
  EXPECT_EQ(round_to_f16(1.0 + 3 * std::ldexp(1.0, -11)), 1.001953125);  // tie -> even mantissa 2
  EXPECT_EQ(round_to_f16(-65519.0), -65504.0);
  EXPECT_TRUE(std::isinf(round_to_f16(65520.0)));
  EXPECT_EQ(round_to_f16(std::ldexp(1.0, -25)), 0.0);            // half the smallest subnormal
  EXPECT_EQ(round_to_f16(3 * std::ldexp(1.0, -25)), std::ldexp(1.0, -23));
  EXPECT_EQ(round_to_f16(std::ldexp(1.0, -14) * 1.5), std::ldexp(1.0, -14) * 1.5);  // exact normal
}

TEST(RefRounding, E4m3GridTiesToEvenCode) {
  EXPECT_EQ(round_to_e4m3(448.0), 448.0);
  EXPECT_EQ(round_to_e4m3(0.3), 0.3125);        // step 2^-5 in [0.25, 0.5)
  EXPECT_EQ(round_to_e4m3(0.296875), 0.3125);   // 9.5 steps -> 10 (mantissa 2, even)
  EXPECT_EQ(round_to_e4m3(0.265625), 0.25);     // 8.5 steps -> 8
  EXPECT_EQ(round_to_e4m3(-0.0029296875), -0.00390625);  // subnormal 1.5 steps of 2^-9 -> 2
  EXPECT_EQ(round_to_e4m3(240.0), 240.0);
  EXPECT_EQ(round_to_e4m3(250.0), 256.0);       // step 16 in [128, 256): 15.625 -> 16
}

TEST(RefRounding, Fp8KvRoundTripScalesPerBlockOf64AndKeepsTheTail) {
  vec row = vec::Zero(96);
  row[0] = 1.0;   // block amax 1 -> scale 2^ceil(log2(1/448)) = 2^-8
  row[1] = 0.3;   // 76.8 / 256 -> 80 / 256
  row[64] = 0.7;  // beyond the 64 rope-free dims of this test: unchanged
  fp8_kv_roundtrip(row, 64);
  EXPECT_EQ(row[0], 1.0);
  EXPECT_EQ(row[1], 0.3125);
  EXPECT_EQ(row[64], 0.7);
  vec tiny = vec::Constant(64, 1e-6);  // amax floored at 1e-4: scale 2^ceil(log2(1e-4/448)) = 2^-22
  fp8_kv_roundtrip(tiny, 64);
  EXPECT_EQ(tiny[0], round_to_e4m3(1e-6 / std::ldexp(1.0, -22)) * std::ldexp(1.0, -22));
}

TEST(RefRounding, E2m1NearestTiesToEvenIndex) {
  EXPECT_EQ(round_to_e2m1(0.25), 0.0);
  EXPECT_EQ(round_to_e2m1(0.75), 1.0);
  EXPECT_EQ(round_to_e2m1(1.25), 1.0);
  EXPECT_EQ(round_to_e2m1(1.75), 2.0);
  EXPECT_EQ(round_to_e2m1(2.5), 2.0);
  EXPECT_EQ(round_to_e2m1(3.5), 4.0);
  EXPECT_EQ(round_to_e2m1(5.0), 4.0);
  EXPECT_EQ(round_to_e2m1(5.1), 6.0);
  EXPECT_EQ(round_to_e2m1(-0.8), -1.0);
}

TEST(RefRounding, HadamardIsOrthonormalAndSelfInverse) {
  vec e = vec::Zero(128);
  e[0] = 1.0;
  hadamard_inplace(e.data(), 128);
  for (double v : e) EXPECT_DOUBLE_EQ(v, 1.0 / std::sqrt(128.0));
  vec x(128);
  for (int i = 0; i < 128; ++i) x[i] = std::sin(1.0 + i * 0.37);
  vec y = x;
  hadamard_inplace(y.data(), 128);
  EXPECT_NEAR(y.norm(), x.norm(), 1e-12);
  hadamard_inplace(y.data(), 128);
  EXPECT_LT((y - x).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(RefRounding, HadamardFp4LandsOnTheScaledGrid) {
  vec x(128);
  for (int i = 0; i < 128; ++i) x[i] = std::cos(0.3 + i * 0.71) * (1 + i % 5);
  vec y = x;
  hadamard_fp4_roundtrip(y.data(), 128);
  vec h = x;
  hadamard_inplace(h.data(), 128);
  for (int b = 0; b < 4; ++b) {
    const double amax = h.segment(32 * b, 32).cwiseAbs().maxCoeff();
    const double scale = std::ldexp(1.0, ceil_log2(amax / 6.0));
    for (int i = 32 * b; i < 32 * b + 32; ++i) {
      const double q = y[i] / scale;
      EXPECT_EQ(q, round_to_e2m1(q));                     // on the grid
      EXPECT_LE(std::fabs(y[i] - h[i]), scale * 1.0 + 1e-15);  // within one grid step (max gap 2)
    }
  }
}

// The reference rounds by scaling to an integer grid; ordo/numeric converts by bit manipulation.
// Written independently, they must agree on every float input (float inputs: no double rounding),
// including exact ties, subnormals and both signs.
TEST(RefRounding, AgreesWithTheBitLevelConversions) {
  std::mt19937 gen(1234);
  std::uniform_int_distribution<int> exp(-30, 17), mant(0, (1 << 23) - 1), coin(0, 1);
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    // Few mantissa bits make exact ties: 4 bits (E4M3, E2M1 ties) or 11 bits (F16 ties).
    const int m = i % 4 == 0 ? mant(gen) & ~((1 << 19) - 1) : i % 4 == 1 ? mant(gen) & ~((1 << 12) - 1) : mant(gen);
    float f = std::ldexp(1.0f + static_cast<float>(m) * 0x1p-23f, exp(gen));
    if (coin(gen)) f = -f;
    const double x = f;
    if (std::fabs(x) <= 65504.0)
      ASSERT_EQ(round_to_f16(x), static_cast<double>(numeric::f16_to_f32(numeric::f32_to_f16(f)))) << f;
    if (std::fabs(x) <= 448.0)
      ASSERT_EQ(round_to_e4m3(x), static_cast<double>(numeric::e4m3_to_f32(numeric::f32_to_e4m3(f)))) << f;
    if (std::fabs(x) <= 6.0)
      ASSERT_EQ(std::fabs(round_to_e2m1(x)), std::fabs(static_cast<double>(numeric::e2m1_to_f32(numeric::f32_to_e2m1(f)))))
          << f;
    ++checked;
  }
  EXPECT_EQ(checked, 200000);
}

}  // namespace
}  // namespace ordo::ref
