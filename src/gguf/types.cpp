// The ggml type table and the size rules shared by reader and writer. The (block_elems,
// block_bytes) pairs are data from ggml.h / ggml.c; tests/unit/gguf checks them against the
// prebuilt libggml-base oracle (ggml_blck_size, ggml_type_size).
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "ordo/model/gguf_types.hpp"

namespace ordo::gguf {
namespace {

constexpr std::array<ggml_type_traits, 35> table{{
    {ggml_type::f32, "f32", 1, 4},
    {ggml_type::f16, "f16", 1, 2},
    {ggml_type::q4_0, "q4_0", 32, 18},
    {ggml_type::q4_1, "q4_1", 32, 20},
    {ggml_type::q5_0, "q5_0", 32, 22},
    {ggml_type::q5_1, "q5_1", 32, 24},
    {ggml_type::q8_0, "q8_0", 32, 34},
    {ggml_type::q8_1, "q8_1", 32, 36},
    {ggml_type::q2_k, "q2_K", 256, 84},
    {ggml_type::q3_k, "q3_K", 256, 110},
    {ggml_type::q4_k, "q4_K", 256, 144},
    {ggml_type::q5_k, "q5_K", 256, 176},
    {ggml_type::q6_k, "q6_K", 256, 210},
    {ggml_type::q8_k, "q8_K", 256, 292},
    {ggml_type::iq2_xxs, "iq2_xxs", 256, 66},
    {ggml_type::iq2_xs, "iq2_xs", 256, 74},
    {ggml_type::iq3_xxs, "iq3_xxs", 256, 98},
    {ggml_type::iq1_s, "iq1_s", 256, 50},
    {ggml_type::iq4_nl, "iq4_nl", 32, 18},
    {ggml_type::iq3_s, "iq3_s", 256, 110},
    {ggml_type::iq2_s, "iq2_s", 256, 82},
    {ggml_type::iq4_xs, "iq4_xs", 256, 136},
    {ggml_type::i8, "i8", 1, 1},
    {ggml_type::i16, "i16", 1, 2},
    {ggml_type::i32, "i32", 1, 4},
    {ggml_type::i64, "i64", 1, 8},
    {ggml_type::f64, "f64", 1, 8},
    {ggml_type::iq1_m, "iq1_m", 256, 56},
    {ggml_type::bf16, "bf16", 1, 2},
    {ggml_type::tq1_0, "tq1_0", 256, 54},
    {ggml_type::tq2_0, "tq2_0", 256, 66},
    {ggml_type::mxfp4, "mxfp4", 32, 17},
    {ggml_type::nvfp4, "nvfp4", 64, 36},
    {ggml_type::q1_0, "q1_0", 128, 18},
    {ggml_type::q2_0, "q2_0", 64, 18},
}};

constexpr std::array<std::string_view, 13> value_type_names{
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

bool is_valid(value_type t) { return static_cast<uint32_t>(t) <= 12; }

std::string to_string(value_type t) {
  const auto id = static_cast<uint32_t>(t);
  if (id < value_type_names.size()) return std::string(value_type_names[id]);
  return "unknown(" + std::to_string(id) + ")";
}

std::optional<ggml_type_traits> find_ggml_type(uint32_t id) {
  for (const auto& t : table)
    if (static_cast<uint32_t>(t.type) == id) return t;
  return std::nullopt;
}

ggml_type_traits ggml_traits(ggml_type type) {
  if (auto t = find_ggml_type(static_cast<uint32_t>(type))) return *t;
  throw error("unknown ggml type id " + std::to_string(static_cast<uint32_t>(type)));
}

std::string to_string(ggml_type type) {
  if (auto t = find_ggml_type(static_cast<uint32_t>(type))) return std::string(t->name);
  return "unknown(" + std::to_string(static_cast<uint32_t>(type)) + ")";
}

std::optional<ggml_type> parse_ggml_type(std::string_view name) {
  for (const auto& t : table)
    if (iequal(t.name, name)) return t.type;
  return std::nullopt;
}

uint64_t tensor_nbytes(ggml_type type, std::span<const uint64_t> dims) {
  const ggml_type_traits t = ggml_traits(type);
  if (dims.empty() || dims.size() > max_dims)
    throw error("tensor has " + std::to_string(dims.size()) + " dims, expected 1.." +
                std::to_string(max_dims));
  // Sizes stay below 2^63 so that they fit ggml's int64 and offset arithmetic never wraps.
  constexpr uint64_t limit = uint64_t{1} << 63;
  if (dims[0] % t.block_elems != 0)
    throw error("ne0 = " + std::to_string(dims[0]) + " is not a multiple of the block size " +
                std::to_string(t.block_elems) + " of type " + std::string(t.name));
  for (uint64_t d : dims)
    if (d >= limit) throw error("dim " + std::to_string(d) + " does not fit in int64");
  // An empty tensor is legal; its other dims may then be anything that fits an int64.
  if (std::find(dims.begin(), dims.end(), uint64_t{0}) != dims.end()) return 0;
  uint64_t elements = 1;
  for (uint64_t d : dims) {
    if (elements > (limit - 1) / d) throw error("tensor element count overflows 63 bits");
    elements *= d;
  }
  uint64_t bytes = dims[0] / t.block_elems;
  auto mul = [&](uint64_t x) {
    if (x != 0 && bytes > (limit - 1) / x)
      throw error("tensor size overflows 63 bits (dims too large)");
    bytes *= x;
  };
  mul(t.block_bytes);
  for (std::size_t i = 1; i < dims.size(); ++i) mul(dims[i]);
  return bytes;
}

}  // namespace ordo::gguf
