// Dots, activation quantizers and block generators. The integer parts of each dot are recomputed
// here from the format's dequant (checked bit-exact against ggml in ggml_oracle_test) with the
// scales set to 1 or 0, which turns dequantized values into the integer codes times their
// sub-block scale: an independent route to the same integers. The float tail is then re-evaluated
// as the header documents it, and the whole dot is compared with a double-precision
// dequantize-then-dot under a rounding-error bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/quant/dequant_row.hpp"
#include "ordo/quant/formats.hpp"
#include "ordo/quant/quantize_q8_0.hpp"
#include "ordo/quant/random_block.hpp"

namespace q = ordo::quant;

namespace {

constexpr int cases = 400;

std::uint32_t bits(float f) { return __builtin_bit_cast(std::uint32_t, f); }

/// `n` floats; each 32-group has its own magnitude 2^k, k in [-10, 10], full-mantissa values.
std::vector<float> activations(q::splitmix64& rng, int n) {
  std::vector<float> x(static_cast<std::size_t>(n));
  for (int g = 0; g < n; g += 32) {
    const float scale = std::ldexp(1.0f, static_cast<int>(rng() % 21u) - 10);
    for (int i = g; i < g + 32; ++i) {
      // Two draws give more than 24 random bits, so products are not short in the mantissa.
      x[static_cast<std::size_t>(i)] = (q::uniform_pm1(rng) + q::uniform01(rng) * 0x1p-20f) * scale;
    }
  }
  return x;
}

template <class F>
std::vector<float> dequant(const typename F::block& b) {
  std::vector<float> y(F::block_elems);
  F::dequant(b, y.data());
  return y;
}

std::int64_t int_dot(const std::vector<float>& codes, const std::int8_t* xq, double factor = 1.0) {
  std::int64_t s = 0;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const double c = static_cast<double>(codes[i]) * factor;
    EXPECT_EQ(c, std::nearbyint(c)) << "non-integer code " << c << " at " << i;
    s += static_cast<std::int64_t>(c) * xq[i];
  }
  return s;
}

/// |dot - Σ w_i·x_i| <= 16·2^-24·Σ mag_i·|x_i|, the double sum over dequantized values.
void expect_close(float dot, const std::vector<float>& w, const std::vector<double>& x, const std::vector<double>& mag,
                  const char* name, int c) {
  double ref = 0.0, bound = 0.0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    ref += static_cast<double>(w[i]) * x[i];
    bound += mag[i] * std::fabs(x[i]);
  }
  bound = bound * 16.0 * 0x1p-24 + 1e-37;
  EXPECT_LE(std::fabs(static_cast<double>(dot) - ref), bound) << name << " case " << c << ": dot " << dot << " ref " << ref;
}

template <class A>
std::vector<double> act_values(const typename A::block& x) {
  std::vector<double> v(A::block_elems);
  for (int i = 0; i < A::block_elems; ++i) v[static_cast<std::size_t>(i)] = static_cast<double>(x.d) * x.qs[i];
  return v;
}

std::vector<double> abs_of(const std::vector<float>& w) {
  std::vector<double> m(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) m[i] = std::fabs(static_cast<double>(w[i]));
  return m;
}

}  // namespace

// ---- float formats ------------------------------------------------------------------------------
template <class F>
void check_float_format() {
  q::splitmix64 rng{100 + F::ggml_type};
  for (int c = 0; c < cases; ++c) {
    typename F::block w[32];
    for (auto& b : w) b = q::random_block<F>(rng, std::ldexp(1.0f, c % 9 - 4));
    const auto xs = activations(rng, 32);
    q::act_f32::block x;
    q::act_f32::quantize(xs.data(), x);
    float expected = 0.0f;  // the documented chain, written out here
    std::vector<float> wv(32);
    std::vector<double> xd(32);
    for (int i = 0; i < 32; ++i) {
      F::dequant(w[i], &wv[static_cast<std::size_t>(i)]);
      xd[static_cast<std::size_t>(i)] = xs[static_cast<std::size_t>(i)];
      expected = std::fmaf(wv[static_cast<std::size_t>(i)], xs[static_cast<std::size_t>(i)], expected);
    }
    const float dot = F::dot_block(w, x);
    ASSERT_EQ(bits(dot), bits(expected)) << F::name << " case " << c;
    expect_close(dot, wv, xd, abs_of(wv), F::name.data(), c);
  }
}
TEST(quant_dot, f32_fma_chain) { check_float_format<q::f32>(); }
TEST(quant_dot, f16_fma_chain) { check_float_format<q::f16>(); }
TEST(quant_dot, bf16_fma_chain) { check_float_format<q::bf16>(); }

// ---- q8_0 and mxfp4 against q8_32 ------------------------------------------------------------
TEST(quant_dot, q8_0) {
  q::splitmix64 rng{200};
  for (int c = 0; c < cases; ++c) {
    const auto w = q::random_block<q::q8_0>(rng, std::ldexp(1.0f, c % 9 - 4));
    const auto xs = activations(rng, 32);
    q::q8_32::block x;
    q::q8_32::quantize(xs.data(), x);
    auto unit = w;
    unit.d = 0x3c00;  // d = 1: dequant yields the codes
    const std::int64_t isum = int_dot(dequant<q::q8_0>(unit), x.qs);
    ASSERT_EQ(q::q8_0::dot_int(w, x), isum);
    const float expected = (ordo::numeric::f16_to_f32(w.d) * x.d) * static_cast<float>(isum);
    const float dot = q::q8_0::dot_block(&w, x);
    ASSERT_EQ(bits(dot), bits(expected)) << "case " << c;
    const auto wv = dequant<q::q8_0>(w);
    expect_close(dot, wv, act_values<q::q8_32>(x), abs_of(wv), "q8_0", c);
  }
}

TEST(quant_dot, mxfp4) {
  q::splitmix64 rng{201};
  for (int c = 0; c < cases; ++c) {
    const auto w = q::random_block<q::mxfp4>(rng, std::ldexp(1.0f, c % 9 - 4));
    const auto xs = activations(rng, 32);
    q::q8_32::block x;
    q::q8_32::quantize(xs.data(), x);
    auto unit = w;
    unit.e = 128;  // half scale 1: dequant yields the doubled E2M1 integers
    const std::int64_t isum = int_dot(dequant<q::mxfp4>(unit), x.qs);
    ASSERT_EQ(q::mxfp4::dot_int(w, x), isum);
    const float expected = (ordo::numeric::e8m0_to_f32_half(w.e) * x.d) * static_cast<float>(isum);
    const float dot = q::mxfp4::dot_block(&w, x);
    ASSERT_EQ(bits(dot), bits(expected)) << "case " << c;
    const auto wv = dequant<q::mxfp4>(w);
    expect_close(dot, wv, act_values<q::q8_32>(x), abs_of(wv), "mxfp4", c);
  }
}

// ---- k-quants against q8_k -------------------------------------------------------------------
template <class F>
void check_kquant(std::uint64_t seed) {
  q::splitmix64 rng{seed};
  for (int c = 0; c < cases; ++c) {
    const auto w = q::random_block<F>(rng, std::ldexp(1.0f, c % 9 - 4));
    const auto xs = activations(rng, 256);
    q::q8_k::block x;
    q::q8_k::quantize(xs.data(), x);
    auto scales_only = w;  // d = 1, dmin = 0: dequant = sc_j·q_i
    scales_only.d = 0x3c00;
    scales_only.dmin = 0;
    auto mins_only = w;  // d = 0, dmin = 1: dequant = -m_j
    mins_only.d = 0;
    mins_only.dmin = 0x3c00;
    const std::int64_t sumi = int_dot(dequant<F>(scales_only), x.qs);
    const std::int64_t summ = -int_dot(dequant<F>(mins_only), x.qs);
    const auto parts = F::dot_int(w, x);
    ASSERT_EQ(parts.sumi, sumi) << F::name << " case " << c;
    ASSERT_EQ(parts.summ, summ) << F::name << " case " << c;
    const float a = ordo::numeric::f16_to_f32(w.d) * x.d;
    const float b = ordo::numeric::f16_to_f32(w.dmin) * x.d;
    const float expected = std::fmaf(a, static_cast<float>(sumi), -(b * static_cast<float>(summ)));
    const float dot = F::dot_block(&w, x);
    ASSERT_EQ(bits(dot), bits(expected)) << F::name << " case " << c;
    // Magnitude of each element's two terms, d·sc·q and dmin·m, each exact in float.
    auto d_part = w, m_part = w;
    d_part.dmin = 0;
    m_part.d = 0;
    const auto dv = dequant<F>(d_part), mv = dequant<F>(m_part);
    std::vector<double> mag(256);
    for (std::size_t i = 0; i < 256; ++i) mag[i] = std::fabs(double{dv[i]}) + std::fabs(double{mv[i]});
    expect_close(dot, dequant<F>(w), act_values<q::q8_k>(x), mag, F::name.data(), c);
  }
}
TEST(quant_dot, q4_k) { check_kquant<q::q4_k>(300); }
TEST(quant_dot, q2_k) { check_kquant<q::q2_k>(301); }

TEST(quant_dot, iq2_xxs) {
  q::splitmix64 rng{302};
  for (int c = 0; c < cases; ++c) {
    const auto w = q::random_block<q::iq2_xxs>(rng, std::ldexp(1.0f, c % 9 - 4));
    const auto xs = activations(rng, 256);
    q::q8_k::block x;
    q::q8_k::quantize(xs.data(), x);
    auto unit = w;
    unit.d = 0x3c00;  // d = 1: dequant = (2ls+1)/8 · grid · sign, so 8× it is the scaled code
    const std::int64_t sumi = int_dot(dequant<q::iq2_xxs>(unit), x.qs, 8.0);
    ASSERT_EQ(q::iq2_xxs::dot_int(w, x), sumi);
    const float a = ordo::numeric::f16_to_f32(w.d) * x.d;
    const float expected = (a * static_cast<float>(sumi)) * 0.125f;
    const float dot = q::iq2_xxs::dot_block(&w, x);
    ASSERT_EQ(bits(dot), bits(expected)) << "case " << c;
    const auto wv = dequant<q::iq2_xxs>(w);
    expect_close(dot, wv, act_values<q::q8_k>(x), abs_of(wv), "iq2_xxs", c);
  }
}

// The chunked integer parts, taken in a shuffled order and split between two "lanes", add up to
// dot_int: the property that lets a kernel distribute a block's integer work.
template <class F>
void check_chunks(std::uint64_t seed) {
  q::splitmix64 rng{seed};
  for (int c = 0; c < cases; ++c) {
    const auto w = q::random_block<F>(rng, 1.0f);
    const auto xs = activations(rng, F::dot_elems);
    typename F::activation::block x;
    F::activation::quantize(xs.data(), x);
    int order[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    for (int i = F::int_chunks - 1; i > 0; --i) std::swap(order[i], order[rng() % static_cast<std::uint64_t>(i + 1)]);
    typename F::int_sum lane0{}, lane1{};
    for (int i = 0; i < F::int_chunks; ++i) {
      if (i % 2 == 0) lane0 = lane0 + F::dot_int_chunk(w, x, order[i]);
      else lane1 = lane1 + F::dot_int_chunk(w, x, order[i]);
    }
    const typename F::int_sum total = lane1 + lane0;
    const typename F::int_sum direct = F::dot_int(w, x);
    ASSERT_EQ(std::memcmp(&total, &direct, sizeof total), 0) << F::name;
    ASSERT_EQ(bits(F::dot_scale(w, x.d, total)), bits(F::dot_block(&w, x))) << F::name;
  }
}
TEST(quant_dot, integer_chunks_combine_in_any_order) {
  check_chunks<q::q8_0>(700);
  check_chunks<q::mxfp4>(701);
  check_chunks<q::q4_k>(702);
  check_chunks<q::q2_k>(703);
  check_chunks<q::iq2_xxs>(704);
}

TEST(quant_dot, extreme_integer_sums_do_not_overflow) {
  // Largest |codes| everywhere against ±127/-128 activations.
  q::q4_k::block w4{};
  w4.d = 0x3c00;
  w4.dmin = 0x3c00;
  std::memset(w4.scales, 0xff, sizeof w4.scales);
  std::memset(w4.qs, 0xff, sizeof w4.qs);
  q::q8_k::block x{};
  x.d = 1.0f;
  for (auto& v : x.qs) v = -128;
  for (auto& s : x.bsums) s = -128 * 16;
  const auto p = q::q4_k::dot_int(w4, x);
  EXPECT_EQ(p.sumi, 63 * 15 * -128 * 256);
  EXPECT_EQ(p.summ, 63 * -128 * 256);
  q::iq2_xxs::block wi{};
  for (int ib = 0; ib < 8; ++ib) {  // grid 255 has a 0x2b (43) in several bytes; ls = 15
    wi.qs[4 * ib] = 0xffff;
    wi.qs[4 * ib + 1] = 0xffff;
    wi.qs[4 * ib + 3] = 0xf000;
  }
  wi.d = 0x3c00;
  const std::int32_t s = q::iq2_xxs::dot_int(wi, x);
  std::int64_t grid_sum = 0;  // Σ over grid[255]'s bytes × 4 groups × 8 sub-blocks
  for (int j = 0; j < 8; ++j) grid_sum += (q::iq2xxs_grid[255] >> (8 * j)) & 0xff;
  EXPECT_EQ(s, 31 * -128 * grid_sum * 4 * 8);
}

// ---- activation quantizers --------------------------------------------------------------------
TEST(quant_activation, q8_32_error_bound_and_extremes) {
  q::splitmix64 rng{400};
  for (int c = 0; c < 4 * cases; ++c) {
    const auto xs = activations(rng, 32);
    q::q8_32::block b;
    q::q8_32::quantize(xs.data(), b);
    float amax = 0.0f;
    for (float v : xs) amax = std::fmax(amax, std::fabs(v));
    ASSERT_EQ(b.d, amax / 127.0f);
    for (int i = 0; i < 32; ++i) {
      const double err = std::fabs(static_cast<double>(xs[static_cast<std::size_t>(i)]) - double{b.d} * b.qs[i]);
      ASSERT_LE(err, 0.5 * b.d * (1.0 + 1e-6)) << "case " << c << " element " << i;
      if (std::fabs(xs[static_cast<std::size_t>(i)]) == amax) ASSERT_EQ(std::abs(b.qs[i]), 127);
    }
  }
}

TEST(quant_activation, q8_k_error_bound_and_bsums) {
  q::splitmix64 rng{401};
  for (int c = 0; c < cases; ++c) {
    const auto xs = activations(rng, 256);
    q::q8_k::block b;
    q::q8_k::quantize(xs.data(), b);
    for (int i = 0; i < 256; ++i) {
      const double err = std::fabs(static_cast<double>(xs[static_cast<std::size_t>(i)]) - double{b.d} * b.qs[i]);
      ASSERT_LE(err, 0.5 * std::fabs(b.d) * (1.0 + 1e-6)) << "case " << c << " element " << i;
    }
    for (int j = 0; j < 16; ++j) {
      int s = 0;
      for (int i = 0; i < 16; ++i) s += b.qs[16 * j + i];
      ASSERT_EQ(b.bsums[j], s);
    }
  }
  float zero[256] = {};
  q::q8_k::block z;
  std::memset(&z, 0x5a, sizeof z);
  q::q8_k::quantize(zero, z);
  EXPECT_EQ(z.d, 0.0f);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(z.qs[i], 0);
  for (int j = 0; j < 16; ++j) EXPECT_EQ(z.bsums[j], 0);
}

// ---- q8_0 weight quantizer ----------------------------------------------------------------------
TEST(quant_q8_0_quantizer, rounds_half_away_with_f32_scale) {
  float x[64] = {};
  x[0] = 127.0f;  // d = 1 exactly, id = 1
  x[1] = 0.5f;    // away from zero: 1 (RNE would give 0)
  x[2] = -2.5f;   // -3
  x[3] = 1.5f;    // 2
  x[4] = -126.5f; // -127
  // second block all zero: d = 0, codes 0
  q::q8_0::block out[2];
  q::quantize_q8_0_row(x, out, 64);
  EXPECT_EQ(out[0].d, 0x3c00);
  EXPECT_EQ(out[0].qs[0], 127);
  EXPECT_EQ(out[0].qs[1], 1);
  EXPECT_EQ(out[0].qs[2], -3);
  EXPECT_EQ(out[0].qs[3], 2);
  EXPECT_EQ(out[0].qs[4], -127);
  EXPECT_EQ(out[0].qs[5], 0);
  EXPECT_EQ(out[1].d, 0);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[1].qs[i], 0);
}

// ---- random_block --------------------------------------------------------------------------------
template <class F>
void check_random_block() {
  q::splitmix64 a{500}, b{500};
  double seen_max = 0.0;
  for (int c = 0; c < cases; ++c) {
    const float scale = std::ldexp(1.0f, c % 11 - 5);
    typename F::block x[q::blocks_per_dot<F>], y[q::blocks_per_dot<F>];
    for (auto& blk : x) blk = q::random_block<F>(a, scale);
    for (auto& blk : y) blk = q::random_block<F>(b, scale);
    ASSERT_EQ(std::memcmp(x, y, sizeof x), 0) << F::name << ": same seed, different bytes";
    for (const auto& blk : x) {
      const auto v = dequant<F>(blk);
      for (float e : v) {
        ASSERT_TRUE(std::isfinite(e)) << F::name;
        ASSERT_LE(std::fabs(e), 1.01 * scale) << F::name << " scale " << scale;
        seen_max = std::fmax(seen_max, std::fabs(e) / scale);
      }
    }
  }
  EXPECT_GE(seen_max, 0.4) << F::name << ": values never come near the requested scale";
}
TEST(quant_random_block, deterministic_and_within_scale) {
  check_random_block<q::f32>();
  check_random_block<q::f16>();
  check_random_block<q::bf16>();
  check_random_block<q::q8_0>();
  check_random_block<q::mxfp4>();
  check_random_block<q::q4_k>();
  check_random_block<q::q2_k>();
  check_random_block<q::iq2_xxs>();
}

// ---- dequant_row (run-time dispatch by ggml type id) --------------------------------------------

template <class F>
void check_dequant_row() {
  q::splitmix64 rng{600};
  std::vector<typename F::block> row(8);
  for (auto& b : row) b = q::random_block<F>(rng, 1.0f);
  const std::size_t n = row.size() * F::block_elems;
  std::vector<float> a(n), b(n);
  q::dequant_row(F::ggml_type, row.data(), a.data(), n);
  for (std::size_t i = 0; i < row.size(); ++i) F::dequant(row[i], b.data() + i * F::block_elems);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(float)), 0) << F::name;
}
TEST(quant_dequant_row, dispatches_every_format) {
  check_dequant_row<q::f32>();
  check_dequant_row<q::f16>();
  check_dequant_row<q::bf16>();
  check_dequant_row<q::q8_0>();
  check_dequant_row<q::mxfp4>();
  check_dequant_row<q::q4_k>();
  check_dequant_row<q::q2_k>();
  check_dequant_row<q::iq2_xxs>();
}
TEST(quant_dequant_row, rejects_unknown_types_and_partial_blocks) {
  float out[256];
  const q::q4_k::block blk{};
  try {
    q::dequant_row(2, &blk, out, 32);  // Q4_0
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ggml type 2"), std::string::npos) << e.what();
  }
  try {
    q::dequant_row(12, &blk, out, 100);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("q4_k"), std::string::npos) << e.what();
  }
}
