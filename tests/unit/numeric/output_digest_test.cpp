// Pins the bits of every function of ordo/numeric (math.hpp, conversions.hpp, pow2.hpp): the
// SHA-256 of each function's output bit patterns over fixed input sets must equal the committed
// table, so a change of any output bit on those inputs fails. math_test.cpp's ulp bounds cannot
// do this: a one-ulp change of exp's 1/3! coefficient moves 0.12% of exp's outputs on [-1, -0.5)
// by one ulp (10008 of 2^23) and stays inside every bound. The two mutation checks in
// CMakeLists.txt (that one and log's 2/7) keep it proven.
//
// Input sets of the float-input functions, enumerated from bit patterns (no RNG, no libm):
//   sweep  every 1021st of the 2^32 bit patterns: every binade, subnormals, ±0, ±inf, NaNs
//   short  every pattern whose low 12 bits are 0, 1, 2, 0xffe or 0xfff: each float of at most 12
//          significant bits and its neighbours within 2 ulps. These hold the round-number branch
//          thresholds of the code (89, −104, 40, −80, 2^-10, 2^-60, ...) and every rounding tie of
//          the narrow formats (an f16 midpoint has 12 significant bits, bf16 9, e4m3 5, e2m1 3)
//   range  the function's DS4 working range (the ranges tests/gpu/numeric uses), every k-th float
//          in value order with k chosen for about 2^22 inputs
//   binade every float of one binade of that range (2^23 inputs). A last-bit change of a
//          high-order coefficient moves only a few outputs per binade (log's 2/7: 8 in [0.5, 1),
//          none on the other sets), which only every-float coverage finds. log's binade [0.5, 1)
//          holds every reduced argument m in [√2/2, √2) of the log kernel exactly once
//   all    every one of the 2^32 bit patterns (only with ORDO_NUMERIC_EXHAUSTIVE: label
//          `exhaustive`; its table is output_digests_all_floats.txt)
// Code-input functions (decoders, pow2_f32) take every code of their format.
//
// The digest of a set is SHA-256 over the outputs in input order, each as its 32-bit pattern
// (codes and ints zero-/sign-extended to 32 bits), little-endian; for `all` it is SHA-256 over the
// 256 SHA-256 digests of its 2^24-input slices (so it can be computed in parallel).
//
// After an INTENTIONAL change of bits, regenerate the tables and say in the commit why the bits
// changed (then re-run tests/gpu/numeric on a device, promise E2):
//   build/cpu-release/tests/unit/numeric/numeric_output_digest_test --print-digests \
//       > tests/unit/numeric/output_digests.txt
//   build/cpu-release/tests/unit/numeric/numeric_output_digest_test --print-digests=all \
//       > tests/unit/numeric/output_digests_all_floats.txt
// (the second: every 2^32 input of 15 functions, about 11 CPU-minutes; the tables do not depend on
// the build's flags: a -O2 -march=native build printed the same grid table as cpu-release).
#include <openssl/evp.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "ordo/numeric/conversions.hpp"
#include "ordo/numeric/math.hpp"
#include "ordo/numeric/pow2.hpp"
#include "support/gtest_run.hpp"

static_assert(std::endian::native == std::endian::little, "the digests hash little-endian words");

namespace {

using namespace ordo::numeric;

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }

// ---- the functions ------------------------------------------------------------------------------

/// Evaluates one function on n inputs (float bit patterns or codes), outputs as 32-bit words.
/// A template per function, so the function is inlined into the loop.
using evaluate_fn = void (*)(const std::uint32_t* in, std::uint32_t* out, std::size_t n);

template <auto F>
void evaluate_float(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const auto y = F(from_bits(in[i]));
    if constexpr (std::is_same_v<decltype(y), const float>) out[i] = bits(y);
    else out[i] = static_cast<std::uint32_t>(y);  // codes zero-extend, ints sign-extend
  }
}

template <auto F, class Code>
void evaluate_code(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = bits(F(static_cast<Code>(in[i])));
}

/// pow2_f32's input is an exponent: code c means k = c − 200, so k runs over [−200, 200].
void evaluate_pow2(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = bits(pow2_f32(static_cast<int>(in[i]) - 200));
}

struct function_info {
  const char* name;
  evaluate_fn evaluate;
  bool takes_float;
  float lo, hi;         // float input: the DS4 working range of the `range` set
  float binade;         // float input: the first float (in value order) of the `binade` set
  std::uint32_t codes;  // code input: how many codes (0 .. codes-1)
};

constexpr function_info functions[] = {
    {"exp_f32", evaluate_float<exp_f32>, true, -30.0f, 0.0f, -1.0f, 0},
    {"log1p_f32", evaluate_float<log1p_f32>, true, -1.0f, 30.0f, 0.5f, 0},
    {"log_f32", evaluate_float<log_f32>, true, 0.0f, 4.0f, 0.5f, 0},
    {"sigmoid_f32", evaluate_float<sigmoid_f32>, true, -30.0f, 30.0f, 1.0f, 0},
    {"silu_f32", evaluate_float<silu_f32>, true, -30.0f, 30.0f, 1.0f, 0},
    {"softplus_f32", evaluate_float<softplus_f32>, true, -20.0f, 20.0f, 1.0f, 0},
    {"sqrt_f32", evaluate_float<sqrt_f32>, true, 1e-12f, 1e12f, 1.0f, 0},
    {"rsqrt_f32", evaluate_float<rsqrt_f32>, true, 1e-12f, 1e12f, 1.0f, 0},
    {"f32_to_f16", evaluate_float<f32_to_f16>, true, -70000.0f, 70000.0f, 1.0f, 0},
    {"f32_to_bf16", evaluate_float<f32_to_bf16>, true, -1e6f, 1e6f, 1.0f, 0},
    {"f32_to_e4m3", evaluate_float<f32_to_e4m3>, true, -500.0f, 500.0f, 1.0f, 0},
    {"f32_to_e2m1", evaluate_float<f32_to_e2m1>, true, -7.0f, 7.0f, 1.0f, 0},
    {"floor_log2", evaluate_float<floor_log2>, true, 0x1p-40f, 0x1p40f, 1.0f, 0},
    {"ceil_log2", evaluate_float<ceil_log2>, true, 0x1p-40f, 0x1p40f, 1.0f, 0},
    {"pow2_ceil", evaluate_float<pow2_ceil>, true, 0x1p-40f, 0x1p40f, 1.0f, 0},
    {"f16_to_f32", evaluate_code<f16_to_f32, std::uint16_t>, false, 0, 0, 0, 1u << 16},
    {"bf16_to_f32", evaluate_code<bf16_to_f32, std::uint16_t>, false, 0, 0, 0, 1u << 16},
    {"e8m0_to_f32", evaluate_code<e8m0_to_f32, std::uint8_t>, false, 0, 0, 0, 256},
    {"e8m0_to_f32_half", evaluate_code<e8m0_to_f32_half, std::uint8_t>, false, 0, 0, 0, 256},
    {"e4m3_to_f32", evaluate_code<e4m3_to_f32, std::uint8_t>, false, 0, 0, 0, 256},
    {"e2m1_to_f32", evaluate_code<e2m1_to_f32, std::uint8_t>, false, 0, 0, 0, 256},  // upper bits ignored
    {"pow2_f32", evaluate_pow2, false, 0, 0, 0, 401},
};

// ---- the input sets -----------------------------------------------------------------------------

/// A set is the sequence input(0), input(1), ... input(size − 1) of 32-bit patterns.
struct input_set {
  std::string name;
  std::uint64_t size;
  std::uint32_t (*pattern)(const input_set&, std::uint64_t i);
  std::uint32_t first_key = 0, step = 1;  // `range`: value-order keys
};

/// Orders floats by value (−NaN < −inf < ... < −0 < +0 < ... < +inf < +NaN) as unsigned keys.
std::uint32_t value_key(std::uint32_t u) { return (u & 0x80000000u) ? ~u : u | 0x80000000u; }
std::uint32_t pattern_of_key(std::uint32_t k) { return (k & 0x80000000u) ? k & 0x7fffffffu : ~k; }

constexpr std::uint32_t sweep_stride = 1021;

input_set sweep_set() {
  return {"sweep", ((std::uint64_t{1} << 32) + sweep_stride - 1) / sweep_stride,
          [](const input_set&, std::uint64_t i) { return static_cast<std::uint32_t>(i * sweep_stride); }};
}

input_set short_set() {
  return {"short", std::uint64_t{5} << 20, [](const input_set&, std::uint64_t i) {
            constexpr std::uint32_t offsets[5] = {0u, 1u, 2u, ~0u, ~1u};  // +0, +1, +2, −1, −2 ulps
            return static_cast<std::uint32_t>((i / 5) << 12) + offsets[i % 5];
          }};
}

input_set range_set(float lo, float hi) {
  const std::uint32_t k_lo = value_key(bits(lo)), k_hi = value_key(bits(hi));
  const std::uint64_t count = std::uint64_t{k_hi} - k_lo + 1;
  const auto step = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, count >> 22));
  input_set s{"range", (count - 1) / step + 1,
              [](const input_set& s, std::uint64_t i) {
                return pattern_of_key(static_cast<std::uint32_t>(s.first_key + i * s.step));
              }};
  s.first_key = k_lo;
  s.step = step;
  return s;
}

/// 2^23 consecutive floats in value order from `first`: the binade [first, 2·first) for a positive
/// power of two, [first, first/2) for a negative one.
input_set binade_set(float first) {
  input_set s{"binade", std::uint64_t{1} << 23, [](const input_set& s, std::uint64_t i) {
                return pattern_of_key(static_cast<std::uint32_t>(s.first_key + i));
              }};
  s.first_key = value_key(bits(first));
  return s;
}

input_set all_floats_set() {
  return {"all", std::uint64_t{1} << 32,
          [](const input_set&, std::uint64_t i) { return static_cast<std::uint32_t>(i); }};
}

input_set code_set(std::uint32_t codes) {
  return {"codes", codes, [](const input_set&, std::uint64_t i) { return static_cast<std::uint32_t>(i); }};
}

// ---- digests ------------------------------------------------------------------------------------

struct sha256 {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  sha256() { EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr); }
  ~sha256() { EVP_MD_CTX_free(ctx); }
  sha256(const sha256&) = delete;
  sha256& operator=(const sha256&) = delete;
  void update(const void* data, std::size_t n) { EVP_DigestUpdate(ctx, data, n); }
  std::array<unsigned char, 32> finish() {
    std::array<unsigned char, 32> d{};
    EVP_DigestFinal_ex(ctx, d.data(), nullptr);
    return d;
  }
};

std::string hex(const std::array<unsigned char, 32>& d) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (unsigned char c : d) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

/// SHA-256 of f's outputs on set inputs [begin, end).
std::array<unsigned char, 32> digest_of(const function_info& f, const input_set& s,
                                        std::uint64_t begin, std::uint64_t end) {
  constexpr std::size_t chunk = 1 << 14;
  std::vector<std::uint32_t> in(chunk), out(chunk);
  sha256 h;
  for (std::uint64_t i = begin; i < end; i += chunk) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, end - i));
    for (std::size_t j = 0; j < n; ++j) in[j] = s.pattern(s, i + j);
    f.evaluate(in.data(), out.data(), n);
    h.update(out.data(), n * sizeof(std::uint32_t));
  }
  return h.finish();
}

struct task {
  const function_info* f;
  input_set s;
  std::string digest;  // filled in by compute_digests
};

/// f's (function, set) pairs: the default sets, or only `all` for a float-input function.
std::vector<task> tasks_of(const function_info& f, bool all_floats) {
  if (all_floats) {
    if (!f.takes_float) return {};
    return {{&f, all_floats_set(), {}}};
  }
  if (!f.takes_float) return {{&f, code_set(f.codes), {}}};
  return {{&f, sweep_set(), {}},
          {&f, short_set(), {}},
          {&f, range_set(f.lo, f.hi), {}},
          {&f, binade_set(f.binade), {}}};
}

std::vector<task> tasks_of_every_function(bool all_floats) {
  std::vector<task> tasks;
  for (const auto& f : functions)
    for (task& t : tasks_of(f, all_floats)) tasks.push_back(std::move(t));
  return tasks;
}

/// Work items: a whole task, or for `all` one 2^24-input slice of it, spread over the cores.
void compute_digests(std::vector<task>& tasks) {
  struct item {
    std::size_t task, slice;
  };
  constexpr std::uint64_t slice_size = std::uint64_t{1} << 24;
  std::vector<item> items;
  std::vector<std::vector<std::array<unsigned char, 32>>> slices(tasks.size());
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const bool sliced = tasks[t].s.name == "all";
    slices[t].resize(sliced ? tasks[t].s.size / slice_size : 1);
    for (std::size_t k = 0; k < slices[t].size(); ++k) items.push_back({t, k});
  }
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < items.size();) {
      const task& t = tasks[items[i].task];
      const bool sliced = slices[items[i].task].size() > 1;
      const std::uint64_t begin = sliced ? items[i].slice * slice_size : 0;
      const std::uint64_t end = sliced ? begin + slice_size : t.s.size;
      slices[items[i].task][items[i].slice] = digest_of(*t.f, t.s, begin, end);
    }
  };
  std::vector<std::thread> pool;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned k = 0; k < threads; ++k) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    if (slices[t].size() == 1) {
      tasks[t].digest = hex(slices[t][0]);
    } else {
      sha256 h;
      for (const auto& d : slices[t]) h.update(d.data(), d.size());
      tasks[t].digest = hex(h.finish());
    }
  }
}

std::string key_of(const task& t) { return std::string(t.f->name) + " " + t.s.name; }

// ---- the committed tables -----------------------------------------------------------------------

/// "function set" → "size digest", from a table file ('#' starts a comment line).
std::map<std::string, std::string> read_table(const std::string& path) {
  std::map<std::string, std::string> table;
  std::ifstream file(path);
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, set, size, digest;
    fields >> name >> set >> size >> digest;
    table[name + " " + set] = size + " " + digest;
  }
  return table;
}

const char* table_path(bool all_floats) {
  return all_floats ? ORDO_NUMERIC_DIGESTS_DIR "/output_digests_all_floats.txt"
                    : ORDO_NUMERIC_DIGESTS_DIR "/output_digests.txt";
}

const std::map<std::string, std::string>& table(bool all_floats) {
  static const auto grid = read_table(table_path(false));
  static const auto all = read_table(table_path(true));
  return all_floats ? all : grid;
}

/// Computes f's digests and compares each with the table: "digest changed: <function> <set>".
void expect_digests_match(const function_info& f, bool all_floats) {
  std::vector<task> tasks = tasks_of(f, all_floats);
  compute_digests(tasks);
  std::uint64_t inputs = 0;
  for (const task& t : tasks) {
    inputs += t.s.size;
    const std::string got = std::to_string(t.s.size) + " " + t.digest;
    const auto it = table(all_floats).find(key_of(t));
    if (it == table(all_floats).end()) {
      ADD_FAILURE() << "digest missing: " << key_of(t) << " (not in " << table_path(all_floats)
                    << "; regenerate it, see this file's header)";
    } else if (it->second != got) {
      ADD_FAILURE() << "digest changed: " << key_of(t) << "\n  table " << it->second << "\n  now   "
                    << got << "\n  (an intentional change? regenerate the table, see this file's header)";
    }
  }
  std::printf("%s: %zu digests over %llu inputs\n", f.name, tasks.size(),
              static_cast<unsigned long long>(inputs));
}

// ---- tests --------------------------------------------------------------------------------------

class output_digest : public testing::TestWithParam<const function_info*> {};

std::vector<const function_info*> every_function() {
  std::vector<const function_info*> out;
  for (const auto& f : functions) out.push_back(&f);
  return out;
}
std::vector<const function_info*> float_input_functions() {
  std::vector<const function_info*> out;
  for (const auto& f : functions)
    if (f.takes_float) out.push_back(&f);
  return out;
}
std::string name_of(const testing::TestParamInfo<const function_info*>& p) { return p.param->name; }

TEST_P(output_digest, matches_the_committed_table) { expect_digests_match(*GetParam(), false); }
INSTANTIATE_TEST_SUITE_P(pinned, output_digest, testing::ValuesIn(every_function()), name_of);

class output_digest_exhaustive : public output_digest {};
TEST_P(output_digest_exhaustive, every_float_when_requested) {
  if (std::getenv("ORDO_NUMERIC_EXHAUSTIVE") == nullptr)
    GTEST_SKIP() << "ORDO_NUMERIC_EXHAUSTIVE unset (every 2^32 input: minutes on 16 cores)";
  expect_digests_match(*GetParam(), true);
}
INSTANTIATE_TEST_SUITE_P(pinned, output_digest_exhaustive, testing::ValuesIn(float_input_functions()),
                         name_of);

TEST(output_digest_table, holds_exactly_the_digests_this_test_computes) {
  for (bool all_floats : {false, true}) {
    // The all-floats table takes ~11 CPU-minutes to generate; until it has been generated (it
    // then holds every entry) the exhaustive test fails with "digest missing" when requested.
    if (all_floats && table(all_floats).empty()) {
      std::printf("note: %s holds no digests yet (see this file's header)\n", table_path(true));
      continue;
    }
    std::vector<std::string> want, got;
    for (const task& t : tasks_of_every_function(all_floats)) want.push_back(key_of(t));
    for (const auto& [key, value] : table(all_floats)) got.push_back(key);
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << table_path(all_floats);
  }
}

TEST(output_digest_sets, are_what_the_header_says) {
  // The value-order key and the range set: lo and hi are the first and last floats it could hold.
  EXPECT_LT(value_key(bits(-1.0f)), value_key(bits(-0.0f)));
  EXPECT_LT(value_key(bits(-0.0f)), value_key(bits(0.0f)));
  EXPECT_EQ(value_key(bits(0.0f)), value_key(bits(-0.0f)) + 1);
  for (float x : {-30.0f, -0.0f, 0.0f, 1e-12f, 448.0f}) EXPECT_EQ(pattern_of_key(value_key(bits(x))), bits(x));
  const input_set r = range_set(-30.0f, 30.0f);
  EXPECT_EQ(r.pattern(r, 0), bits(-30.0f));
  EXPECT_GE(r.size, 1u << 22);
  EXPECT_LT(r.size, 1u << 23);
  const std::uint32_t last = r.pattern(r, r.size - 1);
  EXPECT_LE(from_bits(last), 30.0f);
  EXPECT_GT(from_bits(pattern_of_key(value_key(last) + r.step)), 30.0f);
  // A binade set is the whole binade from its first float.
  const input_set up = binade_set(0.5f), down = binade_set(-1.0f);
  EXPECT_EQ(up.pattern(up, 0), bits(0.5f));
  EXPECT_EQ(up.pattern(up, up.size - 1), bits(std::nextafter(1.0f, 0.0f)));
  EXPECT_EQ(down.pattern(down, 0), bits(-1.0f));
  EXPECT_EQ(down.pattern(down, down.size - 1), bits(std::nextafter(-0.5f, -1.0f)));
  // The short set holds the thresholds and ties named in the header, with their neighbours.
  const input_set s = short_set();
  std::vector<std::uint32_t> held;
  for (std::uint64_t i = 0; i < s.size; ++i) held.push_back(s.pattern(s, i));
  std::sort(held.begin(), held.end());
  auto holds = [&](float x) { return std::binary_search(held.begin(), held.end(), bits(x)); };
  for (float x : {89.0f, -104.0f, 40.0f, -80.0f, -120.0f, 20.0f, -20.0f, 0x1p-10f, -0x1p-60f, 65520.0f,
                  464.0f, 0x1p-25f, 1.0f + 0x1p-11f, 0x1p-126f}) {
    EXPECT_TRUE(holds(x)) << x;
    EXPECT_TRUE(holds(std::nextafter(x, 1e30f))) << x;
    EXPECT_TRUE(holds(std::nextafter(x, -1e30f))) << x;
  }
}

/// --print-digests[=all]: prints the table this build computes (see this file's header).
int print_digests(bool all_floats) {
  std::vector<task> tasks = tasks_of_every_function(all_floats);
  compute_digests(tasks);
  std::printf("# function set inputs sha256 — generated by numeric_output_digest_test --print-digests%s\n"
              "# (tests/unit/numeric/output_digest_test.cpp defines the sets). Do not edit by hand.\n",
              all_floats ? "=all" : "");
  for (const task& t : tasks)
    std::printf("%s %llu %s\n", key_of(t).c_str(), static_cast<unsigned long long>(t.s.size),
                t.digest.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--print-digests") == 0) return print_digests(false);
    if (std::strcmp(argv[i], "--print-digests=all") == 0) return print_digests(true);
  }
  testing::InitGoogleTest(&argc, argv);
  return ordo::test::run_all_tests();
}
