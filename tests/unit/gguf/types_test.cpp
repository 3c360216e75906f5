// ggml type table and tensor sizes. Expected sizes are worked out by hand from ds4-model.md §2
// and §10 (block geometry), not taken from the table under test.
#include <gtest/gtest.h>

#include "ordo/model/gguf_types.hpp"

namespace ordo::gguf {
namespace {

uint64_t nbytes(ggml_type t, std::vector<uint64_t> dims) { return tensor_nbytes(t, dims); }

TEST(gguf_types, ds4_tensor_sizes) {
  // attn_q_a: [4096, 1024] Q8_0 → 4096/32 blocks x 34 bytes x 1024 rows.
  EXPECT_EQ(nbytes(ggml_type::q8_0, {4096, 1024}), 128u * 34 * 1024);
  // ffn_gate_exps q2 file: [4096, 2048, 256] IQ2_XXS → 16 blocks x 66 bytes per row.
  EXPECT_EQ(nbytes(ggml_type::iq2_xxs, {4096, 2048, 256}), 16ull * 66 * 2048 * 256);
  EXPECT_EQ(nbytes(ggml_type::q2_k, {2048, 4096, 256}), 8ull * 84 * 4096 * 256);
  EXPECT_EQ(nbytes(ggml_type::q4_k, {4096, 2048, 256}), 16ull * 144 * 2048 * 256);
  EXPECT_EQ(nbytes(ggml_type::mxfp4, {4096, 2048, 256}), 128ull * 17 * 2048 * 256);
  EXPECT_EQ(nbytes(ggml_type::f16, {4096, 129280}), 2ull * 4096 * 129280);
  EXPECT_EQ(nbytes(ggml_type::i32, {6, 129280}), 4ull * 6 * 129280);
  EXPECT_EQ(nbytes(ggml_type::f32, {1}), 4u);
  EXPECT_EQ(nbytes(ggml_type::f32, {0, 5}), 0u);
}

TEST(gguf_types, size_errors_say_why) {
  auto msg = [](ggml_type t, std::vector<uint64_t> dims) -> std::string {
    try {
      (void)tensor_nbytes(t, dims);
    } catch (const error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(msg(ggml_type::q4_k, {4000, 2}),
            "ne0 = 4000 is not a multiple of the block size 256 of type q4_K");
  EXPECT_EQ(msg(ggml_type::f32, {}), "tensor has 0 dims, expected 1..4");
  EXPECT_EQ(msg(ggml_type::f32, {1, 1, 1, 1, 1}), "tensor has 5 dims, expected 1..4");
  EXPECT_NE(msg(ggml_type::f32, {1ull << 31, 1ull << 31, 4}).find("overflows"), std::string::npos);
  EXPECT_NE(msg(static_cast<ggml_type>(4), {32}).find("unknown ggml type id 4"), std::string::npos);
}

TEST(gguf_types, names_parse_back) {
  for (uint32_t id = 0; id < 64; ++id) {
    const auto t = find_ggml_type(id);
    if (!t) continue;
    EXPECT_EQ(static_cast<uint32_t>(t->type), id);
    EXPECT_EQ(parse_ggml_type(t->name), t->type) << t->name;
    EXPECT_EQ(to_string(t->type), t->name);
  }
  EXPECT_EQ(parse_ggml_type("Q8_0"), ggml_type::q8_0);
  EXPECT_EQ(parse_ggml_type("IQ2_XXS"), ggml_type::iq2_xxs);
  EXPECT_EQ(parse_ggml_type("q4_k"), ggml_type::q4_k);
  EXPECT_EQ(parse_ggml_type("q4_2"), std::nullopt);
  EXPECT_EQ(to_string(static_cast<ggml_type>(31)), "unknown(31)");
  EXPECT_EQ(to_string(value_type::f64), "f64");
  EXPECT_EQ(to_string(static_cast<value_type>(13)), "unknown(13)");
}

}  // namespace
}  // namespace ordo::gguf
