// Exhaustive and tie-focused checks of ordo/numeric/conversions.hpp against references built
// independently of the code under test: decoders from the format's fields with ldexp, encoders by
// searching the sorted list of representable values for the nearest one (ties to the even code).
// f16 is also checked against the compiler's _Float16 conversion (RNE on x86-64), and bf16 against
// clang's __bf16 when built with -DORDO_TEST_COMPILER_BF16 (see there). Set ORDO_NUMERIC_EXHAUSTIVE=1 to compare on all 2^32 floats
// (threaded; seconds to a minute on 16 cores). Last exhaustive runs (16-core host of the device
// machine): f16 vs g++ 12 and clang 19 _Float16, bf16 vs clang 19 __bf16: no mismatch.
#include "ordo/numeric/conversions.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <thread>
#include <vector>

namespace {

using namespace ordo::numeric;

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }

// Compile-time use must work: kernels build lookup tables from these in constant expressions.
static_assert(f16_to_f32(0x3c00) == 1.0f);
static_assert(f32_to_f16(1.0f) == 0x3c00);
static_assert(bf16_to_f32(0x3f80) == 1.0f);
static_assert(f32_to_bf16(-2.0f) == 0xc000);
static_assert(e8m0_to_f32(127) == 1.0f);
static_assert(e8m0_to_f32_half(128) == 1.0f);
static_assert(e4m3_to_f32(0x7e) == 448.0f);
static_assert(f32_to_e4m3(448.0f) == 0x7e);
static_assert(e2m1_to_f32(0x7) == 6.0f);
static_assert(f32_to_e2m1(-6.0f) == 0xf);

// ---- reference machinery ------------------------------------------------------------------------

/// Value of a binary float format from its fields: 1.man * 2^(exp-bias), subnormal at exp == 0.
long double decode_fields(std::uint32_t exp, std::uint32_t man, int man_bits, int bias) {
  const long double m = static_cast<long double>(man);
  if (exp == 0) return std::ldexp(m, 1 - bias - man_bits);
  return std::ldexp(m + std::ldexp(1.0L, man_bits), static_cast<int>(exp) - bias - man_bits);
}

/// Nearest-value encoder over a format's non-negative finite codes (ascending values). Beyond the
/// largest value it either rounds towards `overflow_value` (an IEEE format's infinity, treated as
/// the next binade's first value) or saturates. Ties pick the even code.
struct nearest_encoder {
  std::vector<long double> values;
  std::vector<std::uint32_t> codes;
  std::uint32_t sign_bit;
  bool has_overflow;
  long double overflow_value;
  std::uint32_t overflow_code;

  std::uint32_t encode(float x) const {
    const std::uint32_t sign = std::signbit(x) ? sign_bit : 0u;
    const long double a = std::fabs(static_cast<long double>(x));
    std::uint32_t code;
    if (a > values.back()) {
      if (!has_overflow) return sign | codes.back();
      code = pick(a, values.back(), codes.back(), overflow_value, overflow_code);
      if (a > overflow_value) code = overflow_code;
    } else {
      const auto it = std::lower_bound(values.begin(), values.end(), a);
      const std::size_t i = static_cast<std::size_t>(it - values.begin());
      if (*it == a) code = codes[i];
      else code = pick(a, values[i - 1], codes[i - 1], values[i], codes[i]);
    }
    return sign | code;
  }

  static std::uint32_t pick(long double a, long double lo, std::uint32_t lo_code, long double hi,
                            std::uint32_t hi_code) {
    const long double dl = a - lo, dh = hi - a;  // exact: all operands have <= 25 significant bits
    if (dl < dh) return lo_code;
    if (dh < dl) return hi_code;
    return (lo_code & 1u) == 0 ? lo_code : hi_code;
  }

  /// Every midpoint between neighbours, the values themselves and their float neighbours: the
  /// inputs where an encoder's rounding decisions are made.
  std::vector<float> boundary_inputs() const {
    std::vector<float> out;
    auto add = [&](long double v) {
      const float f = static_cast<float>(v);
      if (static_cast<long double>(f) != v) return;  // only exactly representable points
      for (float g : {f, std::nextafter(f, 0.0f), std::nextafter(f, INFINITY)}) {
        out.push_back(g);
        out.push_back(-g);
      }
    };
    for (std::size_t i = 0; i < values.size(); ++i) {
      add(values[i]);
      if (i + 1 < values.size()) add((values[i] + values[i + 1]) / 2);
    }
    if (has_overflow) add((values.back() + overflow_value) / 2);
    return out;
  }
};

std::vector<float> random_floats(std::size_t n, std::uint32_t seed, float lo_exp, float hi_exp) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> e(lo_exp, hi_exp);
  std::uniform_int_distribution<int> s(0, 1);
  std::vector<float> out(n);
  for (auto& f : out) f = (s(rng) ? -1.0f : 1.0f) * std::exp2(e(rng));
  return out;
}

std::vector<float> special_floats() {
  const float inf = std::numeric_limits<float>::infinity();
  return {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::denorm_min(),
          -std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
          std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 1e-30f, 1e30f};
}

void expect_encoder_matches(const nearest_encoder& ref, const std::vector<float>& inputs,
                            std::uint32_t (*encode)(float), const char* name) {
  std::size_t failures = 0;
  for (float x : inputs) {
    const std::uint32_t want = ref.encode(x), got = encode(x);
    if (want != got && failures++ < 10) {
      ADD_FAILURE() << name << "(" << x << " = 0x" << std::hex << bits(x) << "): got 0x" << got
                    << ", want 0x" << want;
    }
  }
  EXPECT_EQ(failures, 0u) << name << " mismatches out of " << inputs.size();
}

/// Every non-NaN float (2^32 − 2^24 of them), split over the hardware threads: `ours` and
/// `compiler` must agree on each. Reports the first mismatch per thread.
template <class Ours, class Compiler>
void expect_all_floats_agree(Ours ours, Compiler compiler) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::uint64_t> first_bad(threads, ~std::uint64_t{0});
  std::vector<std::thread> pool;
  const std::uint64_t total = std::uint64_t{1} << 32, chunk = (total + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::uint64_t u = t * chunk; u < std::min(total, (t + 1) * chunk); ++u) {
        const float f = from_bits(static_cast<std::uint32_t>(u));
        if (std::isnan(f)) continue;
        if (ours(f) != compiler(f)) {
          first_bad[t] = u;
          return;
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  for (std::uint64_t u : first_bad)
    EXPECT_EQ(u, ~std::uint64_t{0}) << std::hex << "first mismatch at float bits 0x" << u;
}

// ---- f16 ----------------------------------------------------------------------------------------

long double f16_reference(std::uint16_t h) {
  const long double v = decode_fields((h >> 10) & 0x1f, h & 0x3ff, 10, 15);
  return (h & 0x8000) ? -v : v;
}

nearest_encoder f16_encoder() {
  nearest_encoder e{{}, {}, 0x8000u, true, 65536.0L, 0x7c00u};
  for (std::uint32_t c = 0; c < 0x7c00u; ++c) {
    e.values.push_back(f16_reference(static_cast<std::uint16_t>(c)));
    e.codes.push_back(c);
  }
  return e;
}

TEST(f16, decodes_every_code_like_its_fields) {
  for (std::uint32_t c = 0; c < 0x10000u; ++c) {
    const auto h = static_cast<std::uint16_t>(c);
    const float got = f16_to_f32(h);
    const std::uint32_t exp = (c >> 10) & 0x1f, man = c & 0x3ff, sign = (c & 0x8000u) << 16;
    if (exp == 0x1f && man != 0) {
      // NaN: sign and payload kept, quiet bit set.
      EXPECT_EQ(bits(got), sign | 0x7fc00000u | (man << 13)) << std::hex << c;
    } else if (exp == 0x1f) {
      EXPECT_EQ(bits(got), sign | 0x7f800000u) << std::hex << c;
    } else {
      EXPECT_EQ(bits(got), bits(static_cast<float>(f16_reference(h)))) << std::hex << c;
    }
  }
}

TEST(f16, every_code_round_trips) {
  for (std::uint32_t c = 0; c < 0x10000u; ++c) {
    const auto h = static_cast<std::uint16_t>(c);
    const bool nan = (c & 0x7c00u) == 0x7c00u && (c & 0x3ffu) != 0;
    // A NaN round-trips up to its quiet bit.
    const std::uint32_t want = nan ? (c | 0x0200u) : c;
    EXPECT_EQ(f32_to_f16(f16_to_f32(h)), want) << std::hex << c;
  }
}

std::uint32_t f16_encode(float f) { return f32_to_f16(f); }

TEST(f16, encoder_is_nearest_even_at_every_tie_and_on_random_floats) {
  const nearest_encoder ref = f16_encoder();
  std::vector<float> inputs = ref.boundary_inputs();
  ASSERT_GT(inputs.size(), 6u * 60000u);  // every f16 value and every midpoint was representable
  for (float f : random_floats(1 << 20, 1, -30.0f, 17.0f)) inputs.push_back(f);
  for (float f : special_floats()) inputs.push_back(f);
  expect_encoder_matches(ref, inputs, f16_encode, "f32_to_f16");
}

TEST(f16, encoder_edge_cases) {
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7bffu);
  EXPECT_EQ(f32_to_f16(std::nextafter(65520.0f, 0.0f)), 0x7bffu);
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00u);  // tie between 65504 (odd) and inf (even code)
  EXPECT_EQ(f32_to_f16(-1e10f), 0xfc00u);
  EXPECT_EQ(f32_to_f16(0x1p-24f), 0x0001u);
  EXPECT_EQ(f32_to_f16(0x1p-25f), 0x0000u);                           // tie to even 0
  EXPECT_EQ(f32_to_f16(std::nextafter(0x1p-25f, 1.0f)), 0x0001u);
  EXPECT_EQ(f32_to_f16(-0x1p-26f), 0x8000u);                          // sign of zero kept
  EXPECT_EQ(f32_to_f16(0x3p-25f), 0x0002u);                           // 1.5 units: tie up to 2
  EXPECT_EQ(f32_to_f16(0x1.ffcp-15f), 0x0400u);                       // rounds up into normal
  EXPECT_EQ(f32_to_f16(1.0f + 0x1p-11f), 0x3c00u);                    // tie to even mantissa
  EXPECT_EQ(f32_to_f16(1.0f + 0x3p-11f), 0x3c02u);
  // NaN stays NaN, quiet, sign and top payload bits kept.
  EXPECT_EQ(f32_to_f16(from_bits(0x7fc00000u)), 0x7e00u);
  EXPECT_EQ(f32_to_f16(from_bits(0xff800001u)), 0xfe00u);  // signalling, payload below f16's bits
  EXPECT_EQ(f32_to_f16(from_bits(0x7fa02000u)), 0x7e01u | 0x0100u);
}

#if defined(__FLT16_MANT_DIG__)
TEST(f16, agrees_with_compiler_float16) {
  // The compiler conversion is RNE; every f16 code both ways plus a 2^32/4099 stride of floats.
  for (std::uint32_t c = 0; c < 0x10000u; ++c) {
    const auto h = static_cast<std::uint16_t>(c);
    const float hw = static_cast<float>(std::bit_cast<_Float16>(h));
    if (std::isnan(hw)) ASSERT_TRUE(std::isnan(f16_to_f32(h)));
    else ASSERT_EQ(bits(f16_to_f32(h)), bits(hw)) << std::hex << c;
  }
  std::size_t n = 0;
  for (std::uint64_t u = 0; u < (std::uint64_t{1} << 32); u += 4099, ++n) {
    const float f = from_bits(static_cast<std::uint32_t>(u));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_f16(f), std::bit_cast<std::uint16_t>(static_cast<_Float16>(f)))
        << std::hex << "0x" << u;
  }
  EXPECT_GT(n, 1000000u);
}

TEST(f16, exhaustive_against_compiler_float16_when_requested) {
  if (std::getenv("ORDO_NUMERIC_EXHAUSTIVE") == nullptr) GTEST_SKIP() << "ORDO_NUMERIC_EXHAUSTIVE unset";
  expect_all_floats_agree(
      [](float f) { return std::uint32_t{f32_to_f16(f)}; },
      [](float f) { return std::uint32_t{std::bit_cast<std::uint16_t>(static_cast<_Float16>(f))}; });
}
#endif

// ---- bf16 ---------------------------------------------------------------------------------------

long double bf16_reference(std::uint16_t b) {
  const long double v = decode_fields((b >> 7) & 0xff, b & 0x7f, 7, 127);
  return (b & 0x8000) ? -v : v;
}

TEST(bf16, decodes_every_code_like_its_fields) {
  for (std::uint32_t c = 0; c < 0x10000u; ++c) {
    const auto b = static_cast<std::uint16_t>(c);
    const float got = bf16_to_f32(b);
    if ((c & 0x7f80u) == 0x7f80u) {
      EXPECT_EQ(bits(got), c << 16) << std::hex << c;  // inf and NaN: bits kept exactly
      EXPECT_EQ(std::isnan(got), (c & 0x7fu) != 0) << std::hex << c;
    } else {
      EXPECT_EQ(bits(got), bits(static_cast<float>(bf16_reference(b)))) << std::hex << c;
    }
  }
}

TEST(bf16, every_code_round_trips) {
  for (std::uint32_t c = 0; c < 0x10000u; ++c) {
    const bool nan = (c & 0x7f80u) == 0x7f80u && (c & 0x7fu) != 0;
    const std::uint32_t want = nan ? (c | 0x40u) : c;
    EXPECT_EQ(f32_to_bf16(bf16_to_f32(static_cast<std::uint16_t>(c))), want) << std::hex << c;
  }
}

std::uint32_t bf16_encode(float f) { return f32_to_bf16(f); }

TEST(bf16, encoder_is_nearest_even_at_every_tie_and_on_random_floats) {
  nearest_encoder ref{{}, {}, 0x8000u, true, std::ldexp(1.0L, 128), 0x7f80u};
  for (std::uint32_t c = 0; c < 0x7f80u; ++c) {
    ref.values.push_back(bf16_reference(static_cast<std::uint16_t>(c)));
    ref.codes.push_back(c);
  }
  std::vector<float> inputs = ref.boundary_inputs();
  ASSERT_GT(inputs.size(), 6u * 60000u);
  for (float f : random_floats(1 << 20, 2, -149.0f, 128.0f)) inputs.push_back(f);
  for (float f : special_floats()) inputs.push_back(f);
  expect_encoder_matches(ref, inputs, bf16_encode, "f32_to_bf16");
}

#if defined(ORDO_TEST_COMPILER_BF16)
// clang (>= 17) converts float to __bf16 with RNE, but through __truncsfbf2, which Debian 12's
// libgcc lacks; g++ 12 has no arithmetic __bf16 at all. So this check is opt-in: build this file
// with clang++-19 -DORDO_TEST_COMPILER_BF16 --rtlib=compiler-rt.
std::uint32_t compiler_bf16(float f) { return std::bit_cast<std::uint16_t>(static_cast<__bf16>(f)); }

TEST(bf16, agrees_with_compiler_bf16) {
  std::size_t n = 0;
  for (std::uint64_t u = 0; u < (std::uint64_t{1} << 32); u += 4099, ++n) {
    const float f = from_bits(static_cast<std::uint32_t>(u));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_bf16(f), compiler_bf16(f)) << std::hex << "0x" << u;
  }
  EXPECT_GT(n, 1000000u);
}

TEST(bf16, exhaustive_against_compiler_bf16_when_requested) {
  if (std::getenv("ORDO_NUMERIC_EXHAUSTIVE") == nullptr) GTEST_SKIP() << "ORDO_NUMERIC_EXHAUSTIVE unset";
  expect_all_floats_agree([](float f) { return std::uint32_t{f32_to_bf16(f)}; }, compiler_bf16);
}
#endif

TEST(bf16, encoder_edge_cases) {
  EXPECT_EQ(f32_to_bf16(1.0f + 0x1p-8f), 0x3f80u);  // tie, even mantissa kept
  EXPECT_EQ(f32_to_bf16(1.0f + 0x3p-8f), 0x3f82u);  // tie, odd mantissa rounds up
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80u);
  EXPECT_EQ(f32_to_bf16(-INFINITY), 0xff80u);
  EXPECT_EQ(f32_to_bf16(from_bits(0x7f800001u)), 0x7fc0u);  // payload only in the low half
  EXPECT_EQ(f32_to_bf16(from_bits(0xffc12345u)), 0xffc1u);
  EXPECT_EQ(f32_to_bf16(from_bits(0x00008000u)), 0x0000u);  // subnormal tie to even zero
  EXPECT_EQ(f32_to_bf16(from_bits(0x00018000u)), 0x0002u);
}

// ---- E8M0 ---------------------------------------------------------------------------------------

TEST(e8m0, every_code_is_a_power_of_two) {
  for (std::uint32_t e = 0; e < 256; ++e) {
    const auto c = static_cast<std::uint8_t>(e);
    // (float)2^128 overflows to +inf, which is ggml's value for code 255.
    EXPECT_EQ(bits(e8m0_to_f32(c)), bits(static_cast<float>(std::ldexp(1.0L, int(e) - 127)))) << e;
    EXPECT_EQ(bits(e8m0_to_f32_half(c)), bits(static_cast<float>(std::ldexp(1.0L, int(e) - 128))))
        << e;
  }
  EXPECT_EQ(bits(e8m0_to_f32(0)), 0x00400000u);
  EXPECT_EQ(bits(e8m0_to_f32(255)), 0x7f800000u);
  EXPECT_EQ(bits(e8m0_to_f32_half(0)), 0x00200000u);
  EXPECT_EQ(bits(e8m0_to_f32_half(1)), 0x00400000u);
  EXPECT_EQ(e8m0_to_f32_half(255), 0x1p127f);
}

// ---- E4M3 ---------------------------------------------------------------------------------------

long double e4m3_reference(std::uint8_t c) {
  const long double v = decode_fields((c >> 3) & 0xf, c & 7, 3, 7);
  return (c & 0x80) ? -v : v;
}

TEST(e4m3, decodes_every_code_like_its_fields) {
  for (std::uint32_t c = 0; c < 256; ++c) {
    const auto b = static_cast<std::uint8_t>(c);
    const float got = e4m3_to_f32(b);
    if ((c & 0x7f) == 0x7f) {
      EXPECT_TRUE(std::isnan(got)) << c;
      EXPECT_EQ(std::signbit(got), c >= 0x80) << c;
    } else {
      EXPECT_EQ(bits(got), bits(static_cast<float>(e4m3_reference(b)))) << std::hex << c;
    }
  }
  EXPECT_EQ(e4m3_to_f32(0x7e), 448.0f);
  EXPECT_EQ(e4m3_to_f32(0x01), 0x1p-9f);
  EXPECT_EQ(e4m3_to_f32(0x08), 0x1p-6f);
  EXPECT_EQ(bits(e4m3_to_f32(0x80)), 0x80000000u);
}

TEST(e4m3, every_code_round_trips) {
  for (std::uint32_t c = 0; c < 256; ++c) {
    const auto b = static_cast<std::uint8_t>(c);
    const std::uint32_t want = (c & 0x7f) == 0x7f ? 0x7fu : c;  // both NaNs encode as 0x7f
    EXPECT_EQ(f32_to_e4m3(e4m3_to_f32(b)), want) << std::hex << c;
  }
}

std::uint32_t e4m3_encode(float f) { return f32_to_e4m3(f); }

TEST(e4m3, encoder_is_nearest_even_and_saturates) {
  nearest_encoder ref{{}, {}, 0x80u, false, 0, 0};
  for (std::uint32_t c = 0; c < 0x7f; ++c) {
    ref.values.push_back(e4m3_reference(static_cast<std::uint8_t>(c)));
    ref.codes.push_back(c);
  }
  std::vector<float> inputs = ref.boundary_inputs();
  for (float f : random_floats(1 << 18, 3, -14.0f, 10.0f)) inputs.push_back(f);
  for (float f : special_floats()) inputs.push_back(f);  // ±inf saturate in the reference too
  expect_encoder_matches(ref, inputs, e4m3_encode, "f32_to_e4m3");

  EXPECT_EQ(f32_to_e4m3(464.0f), 0x7eu);   // would round to 480 (the NaN code): saturates
  EXPECT_EQ(f32_to_e4m3(-1e9f), 0xfeu);
  EXPECT_EQ(f32_to_e4m3(INFINITY), 0x7eu);
  EXPECT_EQ(f32_to_e4m3(NAN), 0x7fu);
  EXPECT_EQ(f32_to_e4m3(-NAN), 0x7fu);
  EXPECT_EQ(f32_to_e4m3(0x1p-10f), 0x00u);  // tie between 0 and the smallest subnormal
  EXPECT_EQ(f32_to_e4m3(0x3p-10f), 0x02u);  // 1.5 units: tie to even 2
  EXPECT_EQ(f32_to_e4m3(-0x1p-12f), 0x80u);
  EXPECT_EQ(f32_to_e4m3(1.0625f), 0x38u);   // 1 + 1/16: tie to even mantissa 0
  EXPECT_EQ(f32_to_e4m3(1.1875f), 0x3au);   // 1 + 3/16: tie to even mantissa 2
}

// ---- E2M1 ---------------------------------------------------------------------------------------

// The OCP MX v1.0 value table (independent data, not derived from the code under test).
constexpr float e2m1_table[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

TEST(e2m1, decodes_every_code_from_the_table) {
  for (std::uint32_t c = 0; c < 16; ++c) {
    const float want = (c & 8) ? -e2m1_table[c & 7] : e2m1_table[c & 7];
    EXPECT_EQ(bits(e2m1_to_f32(static_cast<std::uint8_t>(c))), bits(want)) << c;
    // Upper bits of the byte are ignored.
    EXPECT_EQ(bits(e2m1_to_f32(static_cast<std::uint8_t>(c | 0xf0))), bits(want)) << c;
    EXPECT_EQ(f32_to_e2m1(e2m1_to_f32(static_cast<std::uint8_t>(c))), c) << c;
  }
}

std::uint32_t e2m1_encode(float f) { return f32_to_e2m1(f); }

TEST(e2m1, encoder_is_nearest_even_and_saturates) {
  nearest_encoder ref{{}, {}, 0x8u, false, 0, 0};
  for (std::uint32_t c = 0; c < 8; ++c) {
    ref.values.push_back(e2m1_table[c]);
    ref.codes.push_back(c);
  }
  std::vector<float> inputs = ref.boundary_inputs();
  for (float f : random_floats(1 << 16, 4, -4.0f, 3.5f)) inputs.push_back(f);
  for (float f : special_floats()) inputs.push_back(f);
  expect_encoder_matches(ref, inputs, e2m1_encode, "f32_to_e2m1");

  const std::pair<float, std::uint8_t> ties[] = {{0.25f, 0}, {0.75f, 2}, {1.25f, 2}, {1.75f, 4},
                                                 {2.5f, 4},  {3.5f, 6},  {5.0f, 6},  {-5.0f, 0xe}};
  for (auto [x, code] : ties) EXPECT_EQ(f32_to_e2m1(x), code) << x;
  EXPECT_EQ(f32_to_e2m1(7.0f), 0x7u);
  EXPECT_EQ(f32_to_e2m1(-INFINITY), 0xfu);
  EXPECT_EQ(f32_to_e2m1(NAN), 0x0u);
  EXPECT_EQ(f32_to_e2m1(-0.1f), 0x8u);
}

}  // namespace
