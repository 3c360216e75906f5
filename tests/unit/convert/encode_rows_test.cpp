// Float → GGUF type encoding. q8_0 is checked on a hand-computed block and, when the llama.cpp
// oracle is unpacked (scripts/fetch-oracles), byte-for-byte against ggml's own quantizer
// (ggml_quantize_chunk in libggml-base.so) on random rows of mixed magnitude.
#include "convert/encode_rows.hpp"

#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "ordo/numeric/conversions.hpp"

namespace ordo::convert {
namespace {

TEST(EncodeRows, Q8_0HandComputedBlock) {
  // amax = 127 → d = 1 exactly; values round half away from zero.
  float x[32];
  for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i) - 16.5f;
  x[0] = -127.0f;
  x[31] = 2.5f;
  quant::q8_0::block b;
  encode_float_rows(gguf::ggml_type::q8_0, x, 1, 32, reinterpret_cast<std::byte*>(&b));
  EXPECT_EQ(b.d, 0x3c00);  // f16 1.0
  EXPECT_EQ(b.qs[0], -127);
  EXPECT_EQ(b.qs[1], -16);  // -15.5 → -16 (away from zero)
  EXPECT_EQ(b.qs[17], 1);   // 0.5 → 1
  EXPECT_EQ(b.qs[16], -1);  // -0.5 → -1
  EXPECT_EQ(b.qs[31], 3);   // 2.5 → 3
  const float zeros[32] = {};
  quant::q8_0::block z;
  encode_float_rows(gguf::ggml_type::q8_0, zeros, 1, 32, reinterpret_cast<std::byte*>(&z));
  EXPECT_EQ(z.d, 0);
  for (auto q : z.qs) EXPECT_EQ(q, 0);
}

TEST(EncodeRows, FloatTypes) {
  const float x[4] = {1.0f, -2.5f, 65504.0f, 1e-8f};
  std::byte out[16];
  encode_float_rows(gguf::ggml_type::f32, x, 1, 4, out);
  EXPECT_EQ(std::memcmp(out, x, 16), 0);
  encode_float_rows(gguf::ggml_type::f16, x, 2, 2, out);
  for (int i = 0; i < 4; ++i) {
    std::uint16_t h;
    std::memcpy(&h, out + 2 * i, 2);
    EXPECT_EQ(h, numeric::f32_to_f16(x[i]));
  }
  encode_float_rows(gguf::ggml_type::bf16, x, 4, 1, out);
  for (int i = 0; i < 4; ++i) {
    std::uint16_t h;
    std::memcpy(&h, out + 2 * i, 2);
    EXPECT_EQ(h, numeric::f32_to_bf16(x[i]));
  }
  EXPECT_EQ(encoded_row_bytes(gguf::ggml_type::q8_0, 64), 68u);
  EXPECT_EQ(encoded_row_bytes(gguf::ggml_type::mxfp4, 64), 34u);
}

TEST(EncodeRows, Q8_0MatchesGgmlQuantizer) {
  const auto lib = std::filesystem::path(ORDO_ORACLE_DIR) / "llama/lib/libggml-base.so";
  if (!std::filesystem::exists(lib)) GTEST_SKIP() << "llama.cpp oracle not unpacked at " << lib;
  void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  using quantize_fn = std::size_t (*)(int, const float*, void*, std::int64_t, std::int64_t, std::int64_t, const float*);
  const auto quantize = reinterpret_cast<quantize_fn>(dlsym(h, "ggml_quantize_chunk"));
  ASSERT_NE(quantize, nullptr);
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_int_distribution<int> ex(-30, 30);
  const int rows = 16, cols = 256;
  std::vector<float> x(rows * cols);
  for (auto& v : x) v = std::ldexp(nd(rng), ex(rng) / 3);  // mixed magnitudes per element
  for (int i = 0; i < 32; ++i) x[5 * cols + i] = 0.0f;   // one all-zero block
  std::vector<std::byte> ours(rows * encoded_row_bytes(gguf::ggml_type::q8_0, cols));
  std::vector<std::byte> theirs(ours.size());
  encode_float_rows(gguf::ggml_type::q8_0, x.data(), rows, cols, ours.data());
  ASSERT_EQ(quantize(8 /* GGML_TYPE_Q8_0 */, x.data(), theirs.data(), 0, rows, cols, nullptr), theirs.size());
  EXPECT_EQ(ours, theirs);
  dlclose(h);
}

}  // namespace
}  // namespace ordo::convert
