// ggml as an independent oracle (oracles.md §1): our dequant must be bit-identical to ggml's
// to_float for every format, on random blocks and on blocks ggml's own quantizers produce; our Q8_0
// weight quantizer and our Q8_K activation quantizer must produce ggml's bytes. ggml comes from the
// prebuilt libggml-base.so (linked) and libggml-cpu-<variant>.so (dlopen'ed) of the npm package
// that scripts/fetch-oracles unpacks.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ggml-cpu.h"
#include "ggml.h"
#include "ordo/quant/formats.hpp"
#include "ordo/quant/q8_k.hpp"
#include "ordo/quant/quantize_mxfp4.hpp"
#include "ordo/quant/quantize_q8_0.hpp"
#include "ordo/quant/random_block.hpp"

// Exported by libggml-base.so but declared only in ggml's internal ggml-quants.h.
extern "C" void quantize_row_q8_K_ref(const float* x, void* y, int64_t k);

namespace q = ordo::quant;

namespace {

std::uint32_t bits(float f) { return __builtin_bit_cast(std::uint32_t, f); }

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

const ggml_type_traits& traits(std::uint32_t type) {
  const auto* t = ggml_get_type_traits(static_cast<ggml_type>(type));
  EXPECT_NE(t, nullptr);
  return *t;
}

/// Our dequant of `blocks` against ggml's to_float of the same bytes, bit for bit.
template <class F>
::testing::AssertionResult same_as_ggml(const std::vector<typename F::block>& blocks, const char* what) {
  const std::size_t n = blocks.size() * F::block_elems;
  std::vector<float> ours(n), theirs(n);
  for (std::size_t b = 0; b < blocks.size(); ++b) F::dequant(blocks[b], ours.data() + b * F::block_elems);
  const auto& t = traits(F::ggml_type);
  if (t.to_float == nullptr) return ::testing::AssertionFailure() << "ggml has no to_float for " << F::name;
  if (static_cast<std::size_t>(t.type_size) != F::block_bytes || t.blck_size != F::block_elems)
    return ::testing::AssertionFailure() << F::name << ": ggml block " << t.blck_size << " elems / " << t.type_size
                                         << " bytes, ours " << F::block_elems << " / " << F::block_bytes;
  t.to_float(blocks.data(), theirs.data(), static_cast<int64_t>(n));
  for (std::size_t i = 0; i < n; ++i)
    if (bits(ours[i]) != bits(theirs[i]))
      return ::testing::AssertionFailure()
             << F::name << " (" << what << "): block " << i / F::block_elems << " element " << i % F::block_elems
             << ": ours " << ours[i] << " (" << hex(bits(ours[i])) << "), ggml " << theirs[i] << " ("
             << hex(bits(theirs[i])) << ")";
  return ::testing::AssertionSuccess();
}

/// Random bytes for every block, then every f16 field made finite (exponent 31 → 15), since a
/// NaN/inf scale would only test NaN propagation.
template <class F>
std::vector<typename F::block> random_byte_blocks(std::size_t count, std::uint64_t seed) {
  q::splitmix64 rng{seed};
  std::vector<typename F::block> v(count);
  for (auto& b : v) {
    q::detail::random_bytes(rng, &b, sizeof b);
    const auto finite = [](std::uint16_t& h) {
      if ((h & 0x7c00u) == 0x7c00u) h = static_cast<std::uint16_t>(h & ~0x4000u);
    };
    if constexpr (requires { b.dmin; }) finite(b.dmin);
    if constexpr (requires { b.d; }) {
      if constexpr (sizeof(b.d) == 2) finite(b.d);
    }
  }
  return v;
}

/// Rows of floats that exercise the quantizers: every 32-element group has its own magnitude
/// 2^k (k in [-12, 12]), and some rows are special (zero, one-hot, constant, exact ties).
std::vector<float> quantizer_inputs(std::size_t rows, std::size_t n_per_row, std::uint64_t seed) {
  q::splitmix64 rng{seed};
  std::vector<float> x(rows * n_per_row);
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = x.data() + r * n_per_row;
    switch (r % 8) {
      case 0:  // all zero
        break;
      case 1:  // one-hot per 256
        for (std::size_t i = 0; i < n_per_row; i += 256) row[i + (rng() % 256)] = q::uniform_pm1(rng) * 3.0f;
        break;
      case 2:  // constant
        for (std::size_t i = 0; i < n_per_row; ++i) row[i] = -0.375f;
        break;
      case 3:  // small integers and halves: many exact rounding ties
        for (std::size_t i = 0; i < n_per_row; ++i)
          row[i] = static_cast<float>(static_cast<int>(rng() % 255u) - 127) * 0.5f;
        break;
      default:
        for (std::size_t g = 0; g < n_per_row; g += 32) {
          const float scale = std::ldexp(1.0f, static_cast<int>(rng() % 25u) - 12);
          for (std::size_t i = g; i < g + 32; ++i) row[i] = q::uniform_pm1(rng) * scale;
        }
    }
  }
  return x;
}

/// Rows of tiny values: each 32-group's largest magnitude is 2^k, k in [-149, -110], so for many
/// groups the quantizers' inverse scale overflows to infinity (the degenerate path).
std::vector<float> tiny_inputs(std::size_t rows, std::size_t n_per_row, std::uint64_t seed) {
  q::splitmix64 rng{seed};
  std::vector<float> x(rows * n_per_row);
  for (std::size_t g = 0; g < x.size(); g += 32) {
    const float scale = std::ldexp(1.0f, static_cast<int>(rng() % 40u) - 149);
    for (std::size_t i = g; i < g + 32; ++i) x[i] = (rng() % 4u == 0) ? 0.0f : q::uniform_pm1(rng) * scale;
  }
  return x;
}

/// ggml_quantize_chunk of `x` into blocks of F (with an importance matrix where ggml needs one).
template <class F>
std::vector<typename F::block> ggml_quantize(const std::vector<float>& x, std::size_t rows, std::size_t n_per_row) {
  std::vector<typename F::block> out(rows * n_per_row / F::block_elems);
  std::vector<float> imatrix(n_per_row);
  for (std::size_t i = 0; i < n_per_row; ++i) imatrix[i] = 0.5f + static_cast<float>(i % 7) * 0.25f;
  const auto type = static_cast<ggml_type>(F::ggml_type);
  ggml_quantize_init(type);
  const float* im = ggml_quantize_requires_imatrix(type) ? imatrix.data() : nullptr;
  const std::size_t written = ggml_quantize_chunk(type, x.data(), out.data(), 0, static_cast<int64_t>(rows),
                                                  static_cast<int64_t>(n_per_row), im);
  EXPECT_EQ(written, out.size() * sizeof(typename F::block)) << F::name;
  return out;
}

constexpr std::size_t random_blocks = 4096;

}  // namespace

// ---- dequant on random bytes -------------------------------------------------------------------
TEST(ggml_oracle, dequant_random_bytes_q8_0) { EXPECT_TRUE(same_as_ggml<q::q8_0>(random_byte_blocks<q::q8_0>(random_blocks, 1), "random bytes")); }
TEST(ggml_oracle, dequant_random_bytes_mxfp4) { EXPECT_TRUE(same_as_ggml<q::mxfp4>(random_byte_blocks<q::mxfp4>(random_blocks, 2), "random bytes")); }
TEST(ggml_oracle, dequant_random_bytes_q4_k) { EXPECT_TRUE(same_as_ggml<q::q4_k>(random_byte_blocks<q::q4_k>(random_blocks, 3), "random bytes")); }
TEST(ggml_oracle, dequant_random_bytes_q2_k) { EXPECT_TRUE(same_as_ggml<q::q2_k>(random_byte_blocks<q::q2_k>(random_blocks, 4), "random bytes")); }
TEST(ggml_oracle, dequant_random_bytes_iq2_xxs) { EXPECT_TRUE(same_as_ggml<q::iq2_xxs>(random_byte_blocks<q::iq2_xxs>(random_blocks, 5), "random bytes")); }

TEST(ggml_oracle, dequant_every_mxfp4_scale) {
  // All 256 E8M0 codes (0 and 255 are special) with random nibbles.
  auto blocks = random_byte_blocks<q::mxfp4>(256, 6);
  for (int e = 0; e < 256; ++e) blocks[static_cast<std::size_t>(e)].e = static_cast<std::uint8_t>(e);
  EXPECT_TRUE(same_as_ggml<q::mxfp4>(blocks, "every e8m0 code"));
}

TEST(ggml_oracle, dequant_every_f16_and_bf16_code) {
  // All 65536 codes, NaNs and infinities included.
  std::vector<q::f16::block> h(65536);
  std::vector<q::bf16::block> b(65536);
  for (std::uint32_t i = 0; i < 65536; ++i) {
    h[i].bits = static_cast<std::uint16_t>(i);
    b[i].bits = static_cast<std::uint16_t>(i);
  }
  EXPECT_TRUE(same_as_ggml<q::f16>(h, "every code"));
  EXPECT_TRUE(same_as_ggml<q::bf16>(b, "every code"));
}

TEST(ggml_oracle, iq2xxs_grid_every_entry) {
  // One block per 32 grid indices, scale 1, ls = 1, no signs: every grid entry appears once.
  std::vector<q::iq2_xxs::block> blocks(8);
  for (std::uint32_t k = 0; k < 8; ++k) {
    auto& b = blocks[k];
    b.d = 0x3c00;
    for (std::uint32_t ib = 0; ib < 8; ++ib) {
      std::uint32_t a0 = 0;
      for (std::uint32_t l = 0; l < 4; ++l) a0 |= (32u * k + 4u * ib + l) << (8u * l);
      const std::uint32_t a1 = 1u << 28;
      b.qs[4 * ib] = static_cast<std::uint16_t>(a0);
      b.qs[4 * ib + 1] = static_cast<std::uint16_t>(a0 >> 16);
      b.qs[4 * ib + 2] = static_cast<std::uint16_t>(a1);
      b.qs[4 * ib + 3] = static_cast<std::uint16_t>(a1 >> 16);
    }
  }
  EXPECT_TRUE(same_as_ggml<q::iq2_xxs>(blocks, "every grid entry"));
  // And every sign pattern: sign index s on group l of sub-block ib, grid index 0.
  std::vector<q::iq2_xxs::block> signs(4);
  for (std::uint32_t k = 0; k < 4; ++k)
    for (std::uint32_t ib = 0; ib < 8; ++ib) {
      std::uint32_t a1 = 5u << 28;
      for (std::uint32_t l = 0; l < 4; ++l) a1 |= ((32u * k + 4u * ib + l) & 127u) << (7u * l);
      signs[k].d = 0x3c00;
      signs[k].qs[4 * ib + 2] = static_cast<std::uint16_t>(a1);
      signs[k].qs[4 * ib + 3] = static_cast<std::uint16_t>(a1 >> 16);
    }
  EXPECT_TRUE(same_as_ggml<q::iq2_xxs>(signs, "every sign index"));
}

// ---- dequant on blocks ggml's quantizers produce ------------------------------------------------
template <class F>
void check_ggml_quantized(std::uint64_t seed, std::size_t rows) {
  constexpr std::size_t n_per_row = 1024;
  const auto x = quantizer_inputs(rows, n_per_row, seed);
  EXPECT_TRUE(same_as_ggml<F>(ggml_quantize<F>(x, rows, n_per_row), "ggml-quantized"));
}
TEST(ggml_oracle, dequant_ggml_quantized_q8_0) { check_ggml_quantized<q::q8_0>(11, 64); }
TEST(ggml_oracle, dequant_ggml_quantized_mxfp4) { check_ggml_quantized<q::mxfp4>(12, 64); }
TEST(ggml_oracle, dequant_ggml_quantized_q4_k) { check_ggml_quantized<q::q4_k>(13, 64); }
TEST(ggml_oracle, dequant_ggml_quantized_q2_k) { check_ggml_quantized<q::q2_k>(14, 64); }
TEST(ggml_oracle, dequant_ggml_quantized_iq2_xxs) { check_ggml_quantized<q::iq2_xxs>(15, 8); }

TEST(ggml_oracle, random_block_generators_are_valid_for_ggml) {
  // Our synthetic-model blocks must decode the same in ggml (so llama.cpp sees the same weights).
  q::splitmix64 rng{21};
  std::vector<q::q8_0::block> a;
  std::vector<q::mxfp4::block> b;
  std::vector<q::q4_k::block> c;
  std::vector<q::q2_k::block> d;
  std::vector<q::iq2_xxs::block> e;
  for (int i = 0; i < 512; ++i) {
    const float scale = std::ldexp(1.0f, i % 17 - 8);
    a.push_back(q::random_block<q::q8_0>(rng, scale));
    b.push_back(q::random_block<q::mxfp4>(rng, scale));
    c.push_back(q::random_block<q::q4_k>(rng, scale));
    d.push_back(q::random_block<q::q2_k>(rng, scale));
    e.push_back(q::random_block<q::iq2_xxs>(rng, scale));
  }
  EXPECT_TRUE(same_as_ggml<q::q8_0>(a, "random_block"));
  EXPECT_TRUE(same_as_ggml<q::mxfp4>(b, "random_block"));
  EXPECT_TRUE(same_as_ggml<q::q4_k>(c, "random_block"));
  EXPECT_TRUE(same_as_ggml<q::q2_k>(d, "random_block"));
  EXPECT_TRUE(same_as_ggml<q::iq2_xxs>(e, "random_block"));
}

// ---- quantizers ---------------------------------------------------------------------------------
TEST(ggml_oracle, q8_0_weight_quantizer_matches_ggml_bytes) {
  constexpr std::size_t rows = 64, n_per_row = 1024;
  for (const auto& x : {quantizer_inputs(rows, n_per_row, 31), tiny_inputs(rows, n_per_row, 34)}) {
    const auto theirs = ggml_quantize<q::q8_0>(x, rows, n_per_row);
    std::vector<q::q8_0::block> ours(theirs.size());
    q::quantize_q8_0_row(x.data(), ours.data(), x.size());
    for (std::size_t b = 0; b < ours.size(); ++b)
      ASSERT_EQ(std::memcmp(&ours[b], &theirs[b], sizeof(q::q8_0::block)), 0)
          << "q8_0 block " << b << ": d ours " << hex(ours[b].d) << " ggml " << hex(theirs[b].d);
  }
}

TEST(ggml_oracle, mxfp4_weight_quantizer_matches_ggml_bytes) {
  constexpr std::size_t rows = 64, n_per_row = 1024;
  auto x = quantizer_inputs(rows, n_per_row, 32);
  // Blocks whose amax sits just below, at and just above a power of two, where the exponent
  // choice floor(log2f(amax)) is decided by log2f's last bit.
  q::splitmix64 rng{33};
  for (std::size_t g = 0; g < x.size(); g += 32 * 5) {
    const float p = std::ldexp(1.0f, static_cast<int>(rng() % 40u) - 20);
    const float picks[3] = {std::nextafter(p, 0.0f), p, std::nextafter(p, 2.0f * p)};
    for (std::size_t i = g; i < g + 32; ++i) x[i] = std::fmin(std::fabs(x[i]), p * 0.999f) * (x[i] < 0 ? -1.0f : 1.0f);
    x[g + rng() % 32] = picks[rng() % 3] * ((rng() & 1u) ? 1.0f : -1.0f);  // the block's amax
  }
  const auto theirs = ggml_quantize<q::mxfp4>(x, rows, n_per_row);
  std::vector<q::mxfp4::block> ours(theirs.size());
  q::quantize_mxfp4_row(x.data(), ours.data(), x.size());
  for (std::size_t b = 0; b < ours.size(); ++b)
    ASSERT_EQ(std::memcmp(&ours[b], &theirs[b], sizeof(q::mxfp4::block)), 0)
        << "mxfp4 block " << b << ": e ours " << int{ours[b].e} << " ggml " << int{theirs[b].e};
}

namespace {
using q8k_fn = void (*)(const float*, void*, int64_t);

void expect_q8_k_matches_on(const std::vector<float>& x, q8k_fn theirs_fn, const char* who);

void expect_q8_k_matches(q8k_fn theirs_fn, const char* who) {
  constexpr std::size_t rows = 64, n_per_row = 1024;
  for (const auto& x : {quantizer_inputs(rows, n_per_row, 41), tiny_inputs(rows, n_per_row, 42)})
    expect_q8_k_matches_on(x, theirs_fn, who);
}
void expect_q8_k_matches_on(const std::vector<float>& x, q8k_fn theirs_fn, const char* who) {
  const std::size_t nb = x.size() / 256;
  std::vector<q::q8_k::block> ours(nb), theirs(nb);
  std::memset(theirs.data(), 0, theirs.size() * sizeof(q::q8_k::block));  // ggml skips bsums of zero blocks
  for (std::size_t b = 0; b < nb; ++b) q::q8_k::quantize(x.data() + 256 * b, ours[b]);
  theirs_fn(x.data(), theirs.data(), static_cast<int64_t>(x.size()));
  for (std::size_t b = 0; b < nb; ++b) {
    ASSERT_EQ(bits(ours[b].d), bits(theirs[b].d)) << who << ": block " << b << " d " << ours[b].d << " vs " << theirs[b].d;
    for (int i = 0; i < 256; ++i) ASSERT_EQ(ours[b].qs[i], theirs[b].qs[i]) << who << ": block " << b << " q[" << i << "]";
    for (int j = 0; j < 16; ++j) ASSERT_EQ(ours[b].bsums[j], theirs[b].bsums[j]) << who << ": block " << b << " bsum " << j;
  }
}
}  // namespace

TEST(ggml_oracle, q8_k_activation_quantizer_matches_ggml_reference) {
  expect_q8_k_matches(&quantize_row_q8_K_ref, "quantize_row_q8_K_ref (libggml-base)");
}

TEST(ggml_oracle, q8_k_activation_quantizer_matches_ggml_cpu_backend) {
  // The CPU backend's quantize_row_q8_K (what llama.cpp runs), from two builds of libggml-cpu: the
  // baseline x64 one and, where this CPU can run it, the AVX2 (haswell) one.
  struct variant {
    const char* name;
    bool usable;
  };
  const variant variants[] = {{"x64", true},
                              {"haswell", __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                                              __builtin_cpu_supports("f16c")}};
  for (const auto& v : variants) {
    if (!v.usable) continue;
    const std::string path = std::string(ORDO_GGML_LIB_DIR) + "/libggml-cpu-" + v.name + ".so";
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << "dlopen " << path << ": " << dlerror() << " (run scripts/fetch-oracles)";
    auto init = reinterpret_cast<void (*)()>(dlsym(h, "ggml_cpu_init"));
    auto get = reinterpret_cast<const ggml_type_traits_cpu* (*)(ggml_type)>(dlsym(h, "ggml_get_type_traits_cpu"));
    ASSERT_TRUE(init != nullptr && get != nullptr) << path << ": missing ggml_cpu_init/ggml_get_type_traits_cpu";
    init();
    const auto* t = get(GGML_TYPE_Q8_K);
    ASSERT_TRUE(t != nullptr && t->from_float != nullptr) << path << ": no Q8_K from_float";
    expect_q8_k_matches(reinterpret_cast<q8k_fn>(t->from_float), path.c_str());
  }
}

// ---- dots against ggml's CPU vec_dot ------------------------------------------------------------
// ggml accumulates its float tail in a different order, so these agree within rounding, not to
// the bit; what they prove is the integer semantics: which activation element pairs with which
// weight code, and how bsums meet the mins. A pairing mistake is off by O(1) relative.
namespace {

struct cpu_lib {
  void* handle = nullptr;
  const ggml_type_traits_cpu* (*get)(ggml_type) = nullptr;
};

const cpu_lib& baseline_cpu() {
  static const cpu_lib lib = [] {
    cpu_lib l;
    const std::string path = std::string(ORDO_GGML_LIB_DIR) + "/libggml-cpu-x64.so";
    l.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (l.handle == nullptr) return l;
    reinterpret_cast<void (*)()>(dlsym(l.handle, "ggml_cpu_init"))();
    l.get = reinterpret_cast<const ggml_type_traits_cpu* (*)(ggml_type)>(dlsym(l.handle, "ggml_get_type_traits_cpu"));
    return l;
  }();
  return lib;
}

/// Σ over rows of |ours - ggml| <= 1e-5 · Σ|w_i·x_i| for one row of `n` elements per case.
template <class F, class MakeAct>
void compare_vec_dot(std::uint64_t seed, MakeAct make_act) {
  const auto& lib = baseline_cpu();
  ASSERT_NE(lib.get, nullptr) << "libggml-cpu-x64.so not loadable from " << ORDO_GGML_LIB_DIR << " (run scripts/fetch-oracles)";
  const auto* t = lib.get(static_cast<ggml_type>(F::ggml_type));
  ASSERT_TRUE(t != nullptr && t->vec_dot != nullptr) << F::name << ": no ggml vec_dot";
  ASSERT_EQ(t->vec_dot_type, F::block_elems == 256 ? GGML_TYPE_Q8_K : GGML_TYPE_Q8_0) << F::name;
  constexpr int n = 1024;
  constexpr int nw = n / F::block_elems;
  q::splitmix64 rng{seed};
  for (int c = 0; c < 200; ++c) {
    std::vector<typename F::block> w(nw);
    for (auto& b : w) b = q::random_block<F>(rng, std::ldexp(1.0f, c % 9 - 4));
    std::vector<float> x(n);
    for (int g = 0; g < n; g += 32) {
      const float s = std::ldexp(1.0f, static_cast<int>(rng() % 13u) - 6);
      for (int i = g; i < g + 32; ++i) x[static_cast<std::size_t>(i)] = q::uniform_pm1(rng) * s;
    }
    float ours = 0.0f, theirs = 0.0f, magnitude = 0.0f;
    make_act(x, w, ours, magnitude, [&](const void* act) { t->vec_dot(n, &theirs, 0, w.data(), 0, act, 0, 1); });
    ASSERT_LE(std::fabs(ours - theirs), 1e-5f * magnitude + 1e-30f)
        << F::name << " case " << c << ": ours " << ours << " ggml " << theirs;
  }
}

/// K-quants and IQ2_XXS: both sides use the same q8_K activation bytes (ours, which equal ggml's).
template <class F>
void compare_q8_k_dot(std::uint64_t seed) {
  compare_vec_dot<F>(seed, [](const std::vector<float>& x, const std::vector<typename F::block>& w, float& ours,
                              float& magnitude, auto&& ggml_dot) {
    std::vector<q::q8_k::block> a(x.size() / 256);
    for (std::size_t b = 0; b < a.size(); ++b) q::q8_k::quantize(x.data() + 256 * b, a[b]);
    for (std::size_t b = 0; b < a.size(); ++b) {
      ours += F::dot_block(&w[b], a[b]);
      float wv[256];
      F::dequant(w[b], wv);
      for (int i = 0; i < 256; ++i) magnitude += std::fabs(wv[i] * a[b].d * a[b].qs[i]);
    }
    ggml_dot(a.data());
  });
}

/// Q8_0 and MXFP4: ggml pairs them with a block_q8_0 activation (f16 scale); we feed ggml's bytes
/// to our dot as a q8_32 block with the same codes and the widened scale.
template <class F>
void compare_q8_0_dot(std::uint64_t seed) {
  compare_vec_dot<F>(seed, [](const std::vector<float>& x, const std::vector<typename F::block>& w, float& ours,
                              float& magnitude, auto&& ggml_dot) {
    std::vector<q::q8_0::block> a(x.size() / 32);
    q::quantize_q8_0_row(x.data(), a.data(), x.size());
    for (std::size_t b = 0; b < a.size(); ++b) {
      q::q8_32::block xb;
      xb.d = ordo::numeric::f16_to_f32(a[b].d);
      std::memcpy(xb.qs, a[b].qs, 32);
      ours += F::dot_block(&w[b], xb);
      float wv[32];
      F::dequant(w[b], wv);
      for (int i = 0; i < 32; ++i) magnitude += std::fabs(wv[i] * xb.d * xb.qs[i]);
    }
    ggml_dot(a.data());
  });
}

}  // namespace

TEST(ggml_oracle, vec_dot_q4_k) { compare_q8_k_dot<q::q4_k>(51); }
TEST(ggml_oracle, vec_dot_q2_k) { compare_q8_k_dot<q::q2_k>(52); }
TEST(ggml_oracle, vec_dot_iq2_xxs) { compare_q8_k_dot<q::iq2_xxs>(53); }
TEST(ggml_oracle, vec_dot_q8_0) { compare_q8_0_dot<q::q8_0>(54); }
TEST(ggml_oracle, vec_dot_mxfp4) { compare_q8_0_dot<q::mxfp4>(55); }
