// Accuracy of ordo/numeric/math.hpp against long-double libm references, over the input ranges DS4
// uses (plus the whole float range where the function is defined), and exact checks of specials.
// Error is measured in ulps of the reference's binade (subnormal references: units of 2^-149).
//
// Measured max ulp. "sampled": this file's default inputs and seed (g++ 12 x86-64; the same on the
// H200 host CPU). "all floats": ORDO_NUMERIC_EXHAUSTIVE=1, every finite float in the domain
// (~9 min on the device machine's 16 cores; ORDO_NUMERIC_EXHAUSTIVE=silu runs one function).
// The asserted bounds sit at or just above the exhaustive maxima, so a change that loses accuracy
// (e.g. dropping a correction term) fails:
//              sampled   all floats   bound   notes
//   exp        0.7520    0.7578       0.8     normal results ≤ 0.58 (sampled); worst are subnormal
//   log1p      0.8198    0.8568       0.9
//   log        0.8042    0.8535       0.9     same kernel as log1p; subnormal inputs ≤ 0.51
//   sigmoid    0.7549    0.7578       0.8     [-30, 30]: 0.5766 (sampled)
//   silu       0.5893    0.6159       0.65    [-30, 30]: 0.5812 (sampled)
//   softplus   1.1580    1.1795       1.25    x > 0 rounds log1p, then x + log1p
//   sqrt       0.5000    0.5000       0.5     correctly rounded
//   rsqrt      0.5000    0.5000       0.55
// Update these when the code changes. The device kernels give the same bits on every input
// (tests/gpu/numeric, exhaustive mode), so these hold on the GPU too.
#include "ordo/numeric/math.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace ordo::numeric;

constexpr float inf = std::numeric_limits<float>::infinity();

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }

/// |got − ref| in ulps of ref's float binade. A reference beyond the float range must be met with
/// the infinity it rounds to (returns 0 then, +inf otherwise).
double ulp_error(float got, long double ref) {
  const float ref_f = static_cast<float>(ref);
  if (std::isinf(ref_f) || std::isinf(got)) return bits(got) == bits(ref_f) ? 0.0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  const int e = ref == 0 ? -126 : std::max(std::ilogb(ref), -126);
  const long double ulp = std::ldexp(1.0L, e - 23);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

/// Inputs in named segments (a DS4 working range, the whole domain, tiny arguments, ...), so the
/// report shows the error where each segment's inputs are, not only the overall worst case.
struct input_set {
  struct segment {
    std::string name;
    std::size_t begin, end;
  };
  std::vector<float> xs;
  std::vector<segment> segments;
  std::mt19937_64 rng{12345};

  void uniform(std::size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    const std::size_t begin = xs.size();
    for (std::size_t i = 0; i < n; ++i) xs.push_back(d(rng));
    segments.push_back({"U[" + fmt(lo) + ", " + fmt(hi) + "]", begin, xs.size()});
  }
  /// |x| = 2^U(lo_exp, hi_exp) with the sign chosen by `sign` (+1, -1, or 0 for both), then
  /// `shift` added (to put tiny offsets next to a pole).
  void log_uniform(std::size_t n, float lo_exp, float hi_exp, int sign, float shift = 0.0f) {
    std::uniform_real_distribution<double> d(lo_exp, hi_exp);
    std::uniform_int_distribution<int> s(0, 1);
    const std::size_t begin = xs.size();
    for (std::size_t i = 0; i < n; ++i) {
      const float m = static_cast<float>(std::exp2(d(rng)));
      const bool negative = sign < 0 || (sign == 0 && s(rng) == 1);
      xs.push_back((negative ? -m : m) + shift);
    }
    const std::string sg = sign > 0 ? "+" : sign < 0 ? "-" : "±";
    segments.push_back({(shift != 0.0f ? fmt(shift) + " " : std::string()) + sg + "2^U[" +
                            fmt(lo_exp) + ", " + fmt(hi_exp) + "]",
                        begin, xs.size()});
  }
  static std::string fmt(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
    return buf;
  }
};

/// Prints one line per segment and the overall maximum, and asserts the bound on the latter.
template <class F, class R>
void check(const char* name, const input_set& in, F f, R ref, double bound) {
  std::vector<double> err(in.xs.size());
  for (std::size_t i = 0; i < in.xs.size(); ++i)
    err[i] = ulp_error(f(in.xs[i]), ref(static_cast<long double>(in.xs[i])));
  // Index of the largest error in [begin, end); NaN errors (none expected) count as largest.
  auto worst = [&](std::size_t begin, std::size_t end) {
    std::size_t w = begin;
    for (std::size_t i = begin; i < end; ++i)
      if (!(err[i] <= err[w])) w = i;
    return w;
  };
  for (const auto& seg : in.segments) {
    const std::size_t w = worst(seg.begin, seg.end);
    std::printf("  %-9s %-26s max ulp %.4f  at x = %a\n", name, seg.name.c_str(), err[w],
                static_cast<double>(in.xs[w]));
  }
  const std::size_t w = worst(0, err.size());
  std::printf("%-9s inputs %8zu  max ulp %.4f  at x = %a  (bound %.2f)\n", name, err.size(),
              err[w], static_cast<double>(in.xs[w]), bound);
  EXPECT_GE(err.size(), 1000000u) << name;
  EXPECT_LE(err[w], bound) << name << ": worst input x = " << std::hexfloat << in.xs[w];
}

// ---- references (long double libm: far more precise than the float results they judge) --------

long double ref_sigmoid(long double x) { return 1.0L / (1.0L + std::exp(-x)); }
long double ref_silu(long double x) { return x / (1.0L + std::exp(-x)); }
long double ref_softplus(long double x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

// ---- accuracy -----------------------------------------------------------------------------------

TEST(math_accuracy, exp) {
  input_set in;
  in.uniform(400000, -30.0f, 0.0f);       // softmax after max subtraction
  in.uniform(400000, -87.0f, 88.7f);      // normal results
  in.uniform(100000, -104.0f, -87.0f);    // subnormal results
  in.log_uniform(200000, -40.0f, 6.5f, 0);
  check("exp", in, exp_f32, [](long double x) { return std::exp(x); }, 0.8);
}

TEST(math_accuracy, log1p) {
  input_set in;
  in.uniform(300000, -1.0f, 1.0f);
  in.log_uniform(300000, -60.0f, 0.0f, 0);          // tiny |x| of both signs
  in.log_uniform(300000, 0.0f, 127.9f, 1);          // large x
  in.log_uniform(200000, -24.0f, -1.0f, 1, -1.0f);  // x = -1 + 2^U: near the pole
  check("log1p", in, log1p_f32, [](long double x) { return std::log1p(x); }, 0.9);
}

TEST(math_accuracy, log) {
  input_set in;
  in.uniform(400000, 0.5f, 2.0f);                 // around 1, where ln(x) is small
  in.log_uniform(400000, -126.0f, 127.99f, 1);    // every normal binade
  in.log_uniform(200000, -149.0f, -126.0f, 1);    // subnormal inputs
  check("log", in, log_f32, [](long double x) { return std::log(x); }, 0.9);
}

TEST(math_accuracy, sigmoid) {
  input_set in;
  in.uniform(500000, -30.0f, 30.0f);  // HC gates
  in.uniform(300000, -120.0f, 120.0f);
  in.log_uniform(200000, -40.0f, 4.0f, 0);
  check("sigmoid", in, sigmoid_f32, ref_sigmoid, 0.8);
}

TEST(math_accuracy, silu) {
  input_set in;
  in.uniform(500000, -30.0f, 30.0f);  // SwiGLU after the clamp
  in.uniform(300000, -120.0f, 120.0f);
  in.log_uniform(200000, -40.0f, 4.0f, 0);
  check("silu", in, silu_f32, ref_silu, 0.65);
}

TEST(math_accuracy, softplus) {
  input_set in;
  in.uniform(500000, -20.0f, 20.0f);  // router logits
  in.uniform(300000, -120.0f, 120.0f);
  in.log_uniform(200000, -40.0f, 4.0f, 0);
  check("softplus", in, softplus_f32, ref_softplus, 1.25);
}

TEST(math_accuracy, sqrt_and_rsqrt) {
  input_set in;
  in.log_uniform(500000, -40.0f, 40.0f, 1);     // RMSNorm: 1e-12 .. 1e12
  in.log_uniform(500000, -149.0f, 127.99f, 1);  // every binade incl. subnormals
  check("sqrt", in, sqrt_f32, [](long double x) { return std::sqrt(x); }, 0.5);
  check("rsqrt", in, rsqrt_f32, [](long double x) { return 1.0L / std::sqrt(x); }, 0.55);
}

// ---- exhaustive (opt-in) -----------------------------------------------------------------------

/// Max ulp error over every finite float in the function's domain (NaN, ±inf and, for log1p/sqrt/
/// rsqrt, inputs outside the domain are the specials tests' business), threaded.
template <class F, class R>
void check_all_floats(const char* name, F f, R ref, bool (*in_domain)(float), double bound) {
  // ORDO_NUMERIC_EXHAUSTIVE=1 (or "all") runs every function; a function name runs only that one.
  const std::string wanted = std::getenv("ORDO_NUMERIC_EXHAUSTIVE");
  if (wanted != "1" && wanted != "all" && wanted != name) return;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<double> worst(threads, 0.0);
  std::vector<float> worst_x(threads, 0.0f);
  std::vector<std::thread> pool;
  const std::uint64_t total = std::uint64_t{1} << 32, chunk = (total + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::uint64_t u = t * chunk; u < std::min(total, (t + 1) * chunk); ++u) {
        const float x = from_bits(static_cast<std::uint32_t>(u));
        if (!std::isfinite(x) || !in_domain(x)) continue;
        const double e = ulp_error(f(x), ref(static_cast<long double>(x)));
        if (!(e <= worst[t])) {
          worst[t] = e;
          worst_x[t] = x;
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  const auto w = static_cast<std::size_t>(std::max_element(worst.begin(), worst.end()) - worst.begin());
  std::printf("%-9s all floats  max ulp %.4f  at x = %a  (bound %.2f)\n", name, worst[w],
              static_cast<double>(worst_x[w]), bound);
  std::fflush(stdout);  // long run: keep finished rows even if it is cut short
  EXPECT_LE(worst[w], bound) << name << ": worst input x = " << std::hexfloat << worst_x[w];
}

bool any_float(float) { return true; }
bool log1p_domain(float x) { return x > -1.0f; }
bool positive(float x) { return x > 0.0f; }

TEST(math_exhaustive, every_float_when_requested) {
  if (std::getenv("ORDO_NUMERIC_EXHAUSTIVE") == nullptr) GTEST_SKIP() << "ORDO_NUMERIC_EXHAUSTIVE unset";
  // ~9 minutes on 16 cores.
  check_all_floats("exp", exp_f32, [](long double x) { return std::exp(x); }, any_float, 0.8);
  check_all_floats("log1p", log1p_f32, [](long double x) { return std::log1p(x); }, log1p_domain,
                   0.9);
  check_all_floats("log", log_f32, [](long double x) { return std::log(x); }, positive, 0.9);
  check_all_floats("sigmoid", sigmoid_f32, ref_sigmoid, any_float, 0.8);
  check_all_floats("silu", silu_f32, ref_silu, any_float, 0.65);
  check_all_floats("softplus", softplus_f32, ref_softplus, any_float, 1.25);
  check_all_floats("sqrt", sqrt_f32, [](long double x) { return std::sqrt(x); }, positive, 0.5);
  check_all_floats("rsqrt", rsqrt_f32, [](long double x) { return 1.0L / std::sqrt(x); }, positive,
                   0.55);
}

// ---- specials: exact bits -----------------------------------------------------------------------

constexpr std::uint32_t canonical_nan = 0x7fc00000u;

TEST(math_specials, nan_inputs_come_back_unchanged) {
  for (std::uint32_t nan : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xffa5a5a5u}) {
    const float x = from_bits(nan);
    EXPECT_EQ(bits(exp_f32(x)), nan);
    EXPECT_EQ(bits(log1p_f32(x)), nan);
    EXPECT_EQ(bits(log_f32(x)), nan);
    EXPECT_EQ(bits(sigmoid_f32(x)), nan);
    EXPECT_EQ(bits(silu_f32(x)), nan);
    EXPECT_EQ(bits(softplus_f32(x)), nan);
    EXPECT_EQ(bits(sqrt_f32(x)), nan);
    EXPECT_EQ(bits(rsqrt_f32(x)), nan);
  }
}

TEST(math_specials, exp) {
  EXPECT_EQ(bits(exp_f32(0.0f)), bits(1.0f));
  EXPECT_EQ(bits(exp_f32(-0.0f)), bits(1.0f));
  EXPECT_EQ(bits(exp_f32(-inf)), 0u);
  EXPECT_EQ(bits(exp_f32(inf)), bits(inf));
  EXPECT_EQ(bits(exp_f32(88.8f)), bits(inf));
  EXPECT_EQ(bits(exp_f32(-104.5f)), 0u);
  EXPECT_EQ(bits(exp_f32(-1000.0f)), 0u);
  // ln(2^-149) ≈ -103.279: the smallest subnormal; just above -103.97 rounds up to it.
  EXPECT_EQ(bits(exp_f32(-103.279f)), 1u);
  EXPECT_EQ(bits(exp_f32(-103.9f)), 1u);
  EXPECT_EQ(bits(exp_f32(-104.0f)), 0u);
}

TEST(math_specials, log1p) {
  EXPECT_EQ(bits(log1p_f32(0.0f)), 0u);
  EXPECT_EQ(bits(log1p_f32(-0.0f)), 0x80000000u);
  EXPECT_EQ(bits(log1p_f32(-1.0f)), bits(-inf));
  EXPECT_EQ(bits(log1p_f32(-1.5f)), canonical_nan);
  EXPECT_EQ(bits(log1p_f32(-inf)), canonical_nan);
  EXPECT_EQ(bits(log1p_f32(inf)), bits(inf));
  EXPECT_EQ(bits(log1p_f32(1e-45f)), bits(1e-45f));  // subnormal input: log1p(x) = x
  EXPECT_EQ(bits(log1p_f32(-1e-40f)), bits(-1e-40f));
  EXPECT_LE(ulp_error(log1p_f32(std::numeric_limits<float>::max()),
                      std::log1p(static_cast<long double>(std::numeric_limits<float>::max()))),
            1.0);
}

TEST(math_specials, log) {
  EXPECT_EQ(bits(log_f32(1.0f)), 0u);
  EXPECT_EQ(bits(log_f32(0.0f)), bits(-inf));
  EXPECT_EQ(bits(log_f32(-0.0f)), bits(-inf));
  EXPECT_EQ(bits(log_f32(-1.0f)), canonical_nan);
  EXPECT_EQ(bits(log_f32(-inf)), canonical_nan);
  EXPECT_EQ(bits(log_f32(inf)), bits(inf));
  // ln(2^-149) = -103.2789...: the smallest subnormal goes through the 2^24 prescale.
  EXPECT_LE(ulp_error(log_f32(0x1p-149f), std::log(static_cast<long double>(0x1p-149f))), 0.5);
  EXPECT_LE(ulp_error(log_f32(std::numeric_limits<float>::max()),
                      std::log(static_cast<long double>(std::numeric_limits<float>::max()))),
            0.5);
}

TEST(math_specials, sigmoid_silu_softplus) {
  EXPECT_EQ(sigmoid_f32(0.0f), 0.5f);
  EXPECT_EQ(bits(sigmoid_f32(inf)), bits(1.0f));
  EXPECT_EQ(bits(sigmoid_f32(-inf)), 0u);
  EXPECT_EQ(sigmoid_f32(40.0f), 1.0f);
  EXPECT_GT(sigmoid_f32(-40.0f), 0.0f);  // relative accuracy kept for negative x
  EXPECT_EQ(bits(silu_f32(0.0f)), 0u);
  EXPECT_EQ(bits(silu_f32(-0.0f)), 0x80000000u);
  EXPECT_EQ(bits(silu_f32(inf)), bits(inf));
  EXPECT_EQ(bits(silu_f32(-inf)), 0x80000000u);
  EXPECT_EQ(bits(silu_f32(-200.0f)), 0x80000000u);
  EXPECT_EQ(silu_f32(100.0f), 100.0f);
  EXPECT_EQ(bits(softplus_f32(inf)), bits(inf));
  EXPECT_EQ(bits(softplus_f32(-inf)), 0u);
  EXPECT_EQ(softplus_f32(25.0f), 25.0f);
  EXPECT_EQ(softplus_f32(1e30f), 1e30f);
  EXPECT_EQ(bits(softplus_f32(-25.0f)), bits(exp_f32(-25.0f)));
}

TEST(math_specials, softplus_shortcut_above_20_changes_no_bits) {
  // The x > 20 shortcut claims x + log1p(e^-x) already rounds to x there.
  for (float x = 20.0f; x < 200.0f; x = std::nextafter(x, inf) + 0.001f) {
    ASSERT_EQ(bits(x + log1p_f32(exp_f32(-x))), bits(x)) << x;
  }
}

TEST(math_specials, sqrt_rsqrt) {
  EXPECT_EQ(bits(sqrt_f32(0.0f)), 0u);
  EXPECT_EQ(bits(sqrt_f32(-0.0f)), 0x80000000u);
  EXPECT_EQ(bits(sqrt_f32(inf)), bits(inf));
  EXPECT_EQ(bits(sqrt_f32(-1.0f)), canonical_nan);
  EXPECT_EQ(bits(sqrt_f32(-inf)), canonical_nan);
  EXPECT_EQ(sqrt_f32(4.0f), 2.0f);
  EXPECT_EQ(sqrt_f32(0x1p-148f), 0x1p-74f);
  EXPECT_EQ(bits(rsqrt_f32(0.0f)), bits(inf));
  EXPECT_EQ(bits(rsqrt_f32(-0.0f)), bits(-inf));
  EXPECT_EQ(bits(rsqrt_f32(inf)), 0u);
  EXPECT_EQ(bits(rsqrt_f32(-2.0f)), canonical_nan);
  EXPECT_EQ(rsqrt_f32(0.25f), 2.0f);
  EXPECT_EQ(rsqrt_f32(0x1p-148f), 0x1p74f);
}

TEST(math_properties, exp_and_sigmoid_are_monotone) {
  // Monotonicity on a dense grid: a polynomial with a wrong coefficient often fails it.
  float prev_e = 0, prev_s = 0;
  for (float x = -30.0f; x <= 30.0f; x += 0x1p-10f) {
    const float e = exp_f32(x), s = sigmoid_f32(x);
    ASSERT_GE(e, prev_e) << x;
    ASSERT_GE(s, prev_s) << x;
    prev_e = e;
    prev_s = s;
  }
}

}  // namespace
