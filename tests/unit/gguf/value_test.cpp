// gguf::value: exact and converting accessors, range checks, messages, rendering, equality.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ordo/model/gguf_value.hpp"

namespace ordo::gguf {
namespace {

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const error& e) {
    return e.what();
  }
  return "no error";
}

TEST(gguf_value, integer_conversions_accept_every_width_that_fits) {
  EXPECT_EQ(value::u8(200).to_u32(), 200u);
  EXPECT_EQ(value::i32(43).to_u32(), 43u);
  EXPECT_EQ(value::u64(4096).to_u32(), 4096u);
  EXPECT_EQ(value::i64(-5).to_i32(), -5);
  EXPECT_EQ(value::i8(-128).to_i64(), -128);
  EXPECT_EQ(value::i32(std::numeric_limits<int32_t>::min()).to_i32(),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(value::i64(std::numeric_limits<int64_t>::min()).to_i64(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(value::u64(std::numeric_limits<uint64_t>::max()).to_u64(),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(error_of([] { (void)value::i32(-1).to_u32(); }), "value -1 (i32) does not fit in u32");
  EXPECT_EQ(error_of([] { (void)value::u64(1ull << 32).to_u32(); }),
            "value 4294967296 (u64) does not fit in u32");
  EXPECT_EQ(error_of([] { (void)value::u32(1u << 31).to_i32(); }),
            "value 2147483648 (u32) does not fit in i32");
  EXPECT_EQ(error_of([] { (void)value::i64(std::numeric_limits<int64_t>::min()).to_i32(); }),
            "value -9223372036854775808 (i64) does not fit in i32");
  EXPECT_EQ(error_of([] { (void)value::f32(1).to_u32(); }),
            "expected u32 (any integer type), found f32");
  EXPECT_EQ(error_of([] { (void)value::boolean(true).to_i64(); }),
            "expected i64 (any integer type), found bool");
}

TEST(gguf_value, float_conversions) {
  EXPECT_EQ(value::f32(1.5f).to_f64(), 1.5);
  EXPECT_EQ(value::f64(1e-6).to_f32(), 1e-6f);
  EXPECT_EQ(value::f64(0.1).to_f64(), 0.1);
  EXPECT_EQ(error_of([] { (void)value::u32(1).to_f32(); }), "expected f32 or f64, found u32");
}

TEST(gguf_value, exact_accessors_name_both_types) {
  EXPECT_EQ(error_of([] { (void)value::u32(1).as_string(); }), "expected string, found u32");
  EXPECT_EQ(error_of([] { (void)value::array_of(std::vector<float>{1}).as_f32(); }),
            "expected f32, found array of f32");
  EXPECT_EQ(error_of([] { (void)value::string("x").items(); }), "expected array, found string");
}

TEST(gguf_value, arrays) {
  const auto a = value::array_of(std::vector<int32_t>{0, 0, 4, 128});
  EXPECT_EQ(a.element_type(), value_type::i32);
  EXPECT_EQ(a.to_vector<uint32_t>(), (std::vector<uint32_t>{0, 0, 4, 128}));
  EXPECT_EQ(a.to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 4, 128}));
  EXPECT_EQ(error_of([&] { (void)value::array_of(std::vector<int32_t>{-1}).to_vector<uint32_t>(); }),
            "value -1 (i32) does not fit in u32");
  const auto s = value::array_of(std::vector<std::string>{"a", "b"});
  EXPECT_EQ(s.element_type(), value_type::string);
  EXPECT_EQ(s.to_vector<std::string>(), (std::vector<std::string>{"a", "b"}));
  const auto b = value::array_of(std::vector<bool>{true, false});
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(error_of([] { (void)value::array(value_type::u32, {value::u32(1), value::i32(2)}); }),
            "array of u32: item 1 is i32");
  EXPECT_EQ(value::array(value_type::u64, {}).items().size(), 0u);
}

TEST(gguf_value, equality_is_by_type_and_bits) {
  EXPECT_EQ(value::u32(1), value::u32(1));
  EXPECT_NE(value::u32(1), value::i32(1));
  EXPECT_NE(value::f32(0.0f), value::f32(-0.0f));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(value::f32(nan), value::f32(nan));
  EXPECT_EQ(value::array_of(std::vector<double>{nan}), value::array_of(std::vector<double>{nan}));
  EXPECT_NE(value::array(value_type::u8, {}), value::array(value_type::u16, {}));
}

TEST(gguf_value, render_abbreviates_long_arrays) {
  EXPECT_EQ(value::u32(7).render(), "7");
  EXPECT_EQ(value::string("a\"b\n").render(), "\"a\\\"b\\x0a\"");
  EXPECT_EQ(value::boolean(true).render(), "true");
  EXPECT_EQ(value::array_of(std::vector<uint32_t>{1, 2, 3, 4, 5}).render(3),
            "[u32 x 5: 1, 2, 3, ...]");
  EXPECT_EQ(value::array(value_type::string, {}).render(), "[string x 0]");
  EXPECT_EQ(value::f32(0.5f).render(), "0.5");
}

}  // namespace
}  // namespace ordo::gguf
