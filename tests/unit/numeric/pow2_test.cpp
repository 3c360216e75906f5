// ordo/numeric/pow2.hpp against std::frexp/std::ldexp (an independent decomposition): every
// power of two and its float neighbours, every subnormal binade, and a stride through all floats.
#include "ordo/numeric/pow2.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace {

using namespace ordo::numeric;

static_assert(pow2_f32(0) == 1.0f);
static_assert(pow2_f32(-149) == 0x1p-149f);
static_assert(ceil_log2(448.0f) == 9);
static_assert(floor_log2(448.0f) == 8);
static_assert(pow2_ceil(3.0f) == 4.0f);

float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }

/// floor and ceil of log2|x| from frexp: |x| = m·2^e with m in [0.5, 1).
int ref_floor_log2(float x) {
  int e = 0;
  std::frexp(x, &e);
  return e - 1;
}
int ref_ceil_log2(float x) {
  int e = 0;
  const float m = std::frexp(std::fabs(x), &e);
  return m == 0.5f ? e - 1 : e;
}

void expect_matches(float x) {
  ASSERT_EQ(floor_log2(x), ref_floor_log2(x)) << std::hexfloat << x;
  ASSERT_EQ(ceil_log2(x), ref_ceil_log2(x)) << std::hexfloat << x;
  if (std::fabs(x) <= 0x1p127f) {
    const float p = pow2_ceil(x);
    ASSERT_EQ(p, std::ldexp(1.0f, ref_ceil_log2(x))) << std::hexfloat << x;
    ASSERT_GE(p, std::fabs(x));
    ASSERT_LT(p * 0.5f, std::fabs(x)) << "not the smallest power of two: " << std::hexfloat << x;
  }
}

TEST(pow2, every_power_exact) {
  for (int k = -149; k <= 127; ++k) EXPECT_EQ(pow2_f32(k), std::ldexp(1.0f, k)) << k;
  EXPECT_EQ(pow2_f32(-150), 0.0f);
  EXPECT_EQ(pow2_f32(128), std::numeric_limits<float>::infinity());
}

TEST(pow2, powers_of_two_and_their_neighbours) {
  for (int k = -149; k <= 127; ++k) {
    const float p = std::ldexp(1.0f, k);
    for (float x : {p, std::nextafter(p, 0.0f), std::nextafter(p, INFINITY),
                    std::nextafter(std::nextafter(p, INFINITY), INFINITY)}) {
      if (x == 0.0f || std::isinf(x)) continue;
      expect_matches(x);
      expect_matches(-x);
    }
  }
}

TEST(pow2, stride_through_all_finite_floats) {
  std::size_t n = 0;
  for (std::uint64_t u = 1; u < 0x7f800000u; u += 251, ++n)
    expect_matches(from_bits(static_cast<std::uint32_t>(u)));
  EXPECT_GT(n, 8000000u);
}

TEST(pow2, zero_infinity_nan_have_fixed_results) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float z : {0.0f, -0.0f}) {
    EXPECT_EQ(floor_log2(z), -150);
    EXPECT_EQ(ceil_log2(z), -150);
    EXPECT_EQ(pow2_ceil(z), 0.0f);
  }
  for (float x : {inf, -inf, std::numeric_limits<float>::quiet_NaN(), from_bits(0x7f800001u)}) {
    EXPECT_EQ(floor_log2(x), 128);
    EXPECT_EQ(ceil_log2(x), 128);
    EXPECT_EQ(pow2_ceil(x), inf);
  }
  EXPECT_EQ(pow2_ceil(std::numeric_limits<float>::max()), inf);
}

TEST(pow2, ds4_scale_edge_where_libm_log2f_rounds_down) {
  // amax/448 one ulp above 2^-10: glibc 2.36's log2f gives exactly -10.0f, so ceilf(log2f(.)) = -10
  // and the scale would be 2^-10 < amax/448; the exact answer is 2^-9.
  const float x = std::nextafter(0x1p-10f, 1.0f);
  EXPECT_EQ(ceil_log2(x), -9);
  EXPECT_EQ(pow2_ceil(x), 0x1p-9f);
}

}  // namespace
