/// One GGUF metadata value: a scalar, a string, or an array (of scalars, strings or arrays; an
/// array records its element type so empty arrays round-trip). Exact accessors (`as_*`) demand
/// the stored type; converting accessors (`to_*`) accept every width GGUF producers use for a
/// quantity (u32 stored as i32, f32 stored as f64, ...) and range-check. All accessors throw
/// gguf::error naming the expected and the actual type; gguf::file adds the path and the key.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ordo/model/gguf_types.hpp"

namespace ordo::gguf {

class value {
 public:
  /// Array payload: every item has type `element_type` (nested arrays: `value_type::array`).
  struct array_data {
    value_type element_type = value_type::u8;
    std::vector<value> items;
    friend bool operator==(const array_data&, const array_data&) = default;
  };

  value() : v_(uint8_t{0}) {}

  // Named constructors: the GGUF type is always explicit (an int literal never guesses).
  static value u8(uint8_t x) { return value(x); }
  static value i8(int8_t x) { return value(x); }
  static value u16(uint16_t x) { return value(x); }
  static value i16(int16_t x) { return value(x); }
  static value u32(uint32_t x) { return value(x); }
  static value i32(int32_t x) { return value(x); }
  static value u64(uint64_t x) { return value(x); }
  static value i64(int64_t x) { return value(x); }
  static value f32(float x) { return value(x); }
  static value f64(double x) { return value(x); }
  static value boolean(bool x) { return value(x); }
  static value string(std::string x) { return value(std::move(x)); }
  /// Throws gguf::error if an item's type differs from `element_type`.
  static value array(value_type element_type, std::vector<value> items);
  /// Array of a C++ element type: uint8_t..int64_t, float, double, bool, std::string.
  template <class T>
  static value array_of(const std::vector<T>& xs);

  value_type type() const { return static_cast<value_type>(v_.index()); }
  bool is_array() const { return type() == value_type::array; }
  bool is_integer() const;  // u8..i64 (not bool)
  bool is_float() const { return type() == value_type::f32 || type() == value_type::f64; }

  // Exact accessors.
  uint8_t as_u8() const { return exact<uint8_t>(value_type::u8); }
  int8_t as_i8() const { return exact<int8_t>(value_type::i8); }
  uint16_t as_u16() const { return exact<uint16_t>(value_type::u16); }
  int16_t as_i16() const { return exact<int16_t>(value_type::i16); }
  uint32_t as_u32() const { return exact<uint32_t>(value_type::u32); }
  int32_t as_i32() const { return exact<int32_t>(value_type::i32); }
  uint64_t as_u64() const { return exact<uint64_t>(value_type::u64); }
  int64_t as_i64() const { return exact<int64_t>(value_type::i64); }
  float as_f32() const { return exact<float>(value_type::f32); }
  double as_f64() const { return exact<double>(value_type::f64); }
  bool as_bool() const { return exact<bool>(value_type::boolean); }
  const std::string& as_string() const { return exact<std::string>(value_type::string); }
  const array_data& as_array() const { return exact<array_data>(value_type::array); }
  /// Element type of an array (throws if not an array).
  value_type element_type() const { return as_array().element_type; }
  /// Items of an array (throws if not an array).
  std::span<const value> items() const { return as_array().items; }

  // Converting accessors: any integer width whose value fits; floats from f32 or f64.
  uint32_t to_u32() const;
  int32_t to_i32() const;
  uint64_t to_u64() const;
  int64_t to_i64() const;
  float to_f32() const;  // f64 is rounded to nearest f32
  double to_f64() const;
  /// Array → std::vector<T>, converting each item with the matching to_* (strings and bools
  /// exact). T: uint32_t, int32_t, uint64_t, int64_t, float, double, bool, std::string,
  /// uint8_t/int8_t/uint16_t/int16_t (exact).
  template <class T>
  std::vector<T> to_vector() const;

  /// Short human rendering: scalars as text, strings quoted, arrays as
  /// `[u32 x 43: 0, 0, 4, 128, ... ]` with at most `max_items` items shown.
  std::string render(std::size_t max_items = 8) const;

  /// Deep equality; floats compare by bits (NaN payloads and -0.0 round-trip exactly).
  friend bool operator==(const value& a, const value& b);

 private:
  // Alternative index == GGUF value type id, so type() is the variant index.
  using storage = std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool,
                               std::string, array_data, uint64_t, int64_t, double>;
  template <class T>
    requires(!std::is_same_v<T, value>)
  explicit value(T x) : v_(std::in_place_type<T>, std::move(x)) {}
  template <class T>
  const T& exact(value_type want) const {
    if (type() != want) throw_type_mismatch(want);
    return std::get<T>(v_);
  }
  [[noreturn]] void throw_type_mismatch(value_type want) const;
  [[noreturn]] void throw_type_mismatch(std::string_view want) const;
  storage v_;
};

/// One metadata entry, in file order.
struct key_value {
  std::string key;
  value val;
  friend bool operator==(const key_value&, const key_value&) = default;
};

// ---- template definitions ----------------------------------------------------------------------

template <class T>
value value::array_of(const std::vector<T>& xs) {
  std::vector<value> items;
  items.reserve(xs.size());
  for (const auto& x : xs) items.push_back(value(T(x)));
  array_data a{value(T{}).type(), std::move(items)};
  return value(std::move(a));
}

template <class T>
std::vector<T> value::to_vector() const {
  const auto& a = as_array();
  std::vector<T> out;
  out.reserve(a.items.size());
  for (const auto& it : a.items) {
    if constexpr (std::is_same_v<T, uint32_t>) out.push_back(it.to_u32());
    else if constexpr (std::is_same_v<T, int32_t>) out.push_back(it.to_i32());
    else if constexpr (std::is_same_v<T, uint64_t>) out.push_back(it.to_u64());
    else if constexpr (std::is_same_v<T, int64_t>) out.push_back(it.to_i64());
    else if constexpr (std::is_same_v<T, float>) out.push_back(it.to_f32());
    else if constexpr (std::is_same_v<T, double>) out.push_back(it.to_f64());
    else if constexpr (std::is_same_v<T, bool>) out.push_back(it.as_bool());
    else if constexpr (std::is_same_v<T, std::string>) out.push_back(it.as_string());
    else if constexpr (std::is_same_v<T, uint8_t>) out.push_back(it.as_u8());
    else if constexpr (std::is_same_v<T, int8_t>) out.push_back(it.as_i8());
    else if constexpr (std::is_same_v<T, uint16_t>) out.push_back(it.as_u16());
    else if constexpr (std::is_same_v<T, int16_t>) out.push_back(it.as_i16());
    else static_assert(sizeof(T) == 0, "value::to_vector: unsupported element type");
  }
  return out;
}

}  // namespace ordo::gguf
