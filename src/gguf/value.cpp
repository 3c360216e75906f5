// gguf::value: construction checks, converting accessors, rendering and bitwise equality.
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "ordo/model/gguf_value.hpp"

namespace ordo::gguf {
namespace {

// Integer payload widened to a sign flag and a magnitude, so range checks need no casts that
// could wrap.
struct wide_int {
  bool negative;
  uint64_t magnitude;
};

template <class To>
bool fits(wide_int w) {
  if (w.negative) {
    if constexpr (std::is_unsigned_v<To>) return false;
    else return w.magnitude <= uint64_t(std::numeric_limits<To>::max()) + 1;
  }
  return w.magnitude <= uint64_t(std::numeric_limits<To>::max());
}

template <class To>
To narrow(wide_int w) {
  if (w.negative) return static_cast<To>(-static_cast<To>(w.magnitude - 1) - 1);
  return static_cast<To>(w.magnitude);
}

template <class T>
std::string float_text(T x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(x));
  return buf;
}

std::string quote(const std::string& s, std::size_t max_bytes) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size() && i < max_bytes; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  if (s.size() > max_bytes) out += "...";
  return out + "\"";
}

}  // namespace

value value::array(value_type element_type, std::vector<value> items) {
  if (!is_valid(element_type))
    throw error("array element type " + to_string(element_type) + " is not a GGUF value type");
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].type() != element_type)
      throw error("array of " + to_string(element_type) + ": item " + std::to_string(i) +
                  " is " + to_string(items[i].type()));
  return value(array_data{element_type, std::move(items)});
}

bool value::is_integer() const {
  switch (type()) {
    case value_type::u8: case value_type::i8: case value_type::u16: case value_type::i16:
    case value_type::u32: case value_type::i32: case value_type::u64: case value_type::i64:
      return true;
    default:
      return false;
  }
}

void value::throw_type_mismatch(value_type want) const { throw_type_mismatch(to_string(want)); }

void value::throw_type_mismatch(std::string_view want) const {
  std::string have = to_string(type());
  if (is_array()) have = "array of " + to_string(as_array().element_type);
  throw error("expected " + std::string(want) + ", found " + have);
}

namespace {
wide_int widen(const value& v) {
  switch (v.type()) {
    case value_type::u8: return {false, v.as_u8()};
    case value_type::u16: return {false, v.as_u16()};
    case value_type::u32: return {false, v.as_u32()};
    case value_type::u64: return {false, v.as_u64()};
    case value_type::i8: case value_type::i16: case value_type::i32: case value_type::i64: {
      const int64_t x = v.type() == value_type::i8    ? v.as_i8()
                        : v.type() == value_type::i16 ? v.as_i16()
                        : v.type() == value_type::i32 ? v.as_i32()
                                                      : v.as_i64();
      if (x >= 0) return {false, uint64_t(x)};
      return {true, uint64_t(-(x + 1)) + 1};
    }
    default: return {false, 0};
  }
}
}  // namespace

#define ORDO_GGUF_TO_INT(NAME, T, LABEL)                                                   \
  T value::NAME() const {                                                                  \
    if (!is_integer()) throw_type_mismatch(LABEL " (any integer type)");                  \
    const wide_int w = widen(*this);                                                       \
    if (!fits<T>(w))                                                                       \
      throw error("value " + std::string(w.negative ? "-" : "") + std::to_string(w.magnitude) + \
                  " (" + to_string(type()) + ") does not fit in " LABEL);                  \
    return narrow<T>(w);                                                                   \
  }
ORDO_GGUF_TO_INT(to_u32, uint32_t, "u32")
ORDO_GGUF_TO_INT(to_i32, int32_t, "i32")
ORDO_GGUF_TO_INT(to_u64, uint64_t, "u64")
ORDO_GGUF_TO_INT(to_i64, int64_t, "i64")
#undef ORDO_GGUF_TO_INT

float value::to_f32() const {
  if (type() == value_type::f32) return as_f32();
  if (type() == value_type::f64) return static_cast<float>(as_f64());
  throw_type_mismatch("f32 or f64");
}

double value::to_f64() const {
  if (type() == value_type::f32) return as_f32();
  if (type() == value_type::f64) return as_f64();
  throw_type_mismatch("f32 or f64");
}

std::string value::render(std::size_t max_items) const {
  switch (type()) {
    case value_type::u8: return std::to_string(as_u8());
    case value_type::i8: return std::to_string(as_i8());
    case value_type::u16: return std::to_string(as_u16());
    case value_type::i16: return std::to_string(as_i16());
    case value_type::u32: return std::to_string(as_u32());
    case value_type::i32: return std::to_string(as_i32());
    case value_type::u64: return std::to_string(as_u64());
    case value_type::i64: return std::to_string(as_i64());
    case value_type::f32: return float_text(as_f32());
    case value_type::f64: return float_text(as_f64());
    case value_type::boolean: return as_bool() ? "true" : "false";
    case value_type::string: return quote(as_string(), 200);
    case value_type::array: {
      const auto& a = as_array();
      std::string out = "[" + to_string(a.element_type) + " x " + std::to_string(a.items.size());
      if (!a.items.empty()) out += ":";
      for (std::size_t i = 0; i < a.items.size() && i < max_items; ++i)
        out += (i ? ", " : " ") + a.items[i].render(max_items);
      if (a.items.size() > max_items) out += ", ...";
      return out + "]";
    }
  }
  return "?";
}

bool operator==(const value& a, const value& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case value_type::f32:
      return std::bit_cast<uint32_t>(a.as_f32()) == std::bit_cast<uint32_t>(b.as_f32());
    case value_type::f64:
      return std::bit_cast<uint64_t>(a.as_f64()) == std::bit_cast<uint64_t>(b.as_f64());
    default:
      return a.v_ == b.v_;
  }
}

}  // namespace ordo::gguf
