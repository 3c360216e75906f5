/// GGUF building blocks shared by the reader and the writer: the error type, the metadata value
/// type ids (GGUF ids 0..12), and the ggml tensor type table (block elements and block bytes of
/// every ggml type id, including ones ordo never computes with, so any file can be validated).
/// Implemented in src/gguf (library `ordo_gguf`).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ordo::gguf {

/// Every failure of the GGUF reader and writer. Messages name the file first ("<path>: ..."),
/// then the key, tensor or field at fault.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// GGUF metadata value types; the numeric values are the ids stored in the file.
enum class value_type : uint32_t {
  u8 = 0,
  i8 = 1,
  u16 = 2,
  i16 = 3,
  u32 = 4,
  i32 = 5,
  f32 = 6,
  boolean = 7,
  string = 8,
  array = 9,
  u64 = 10,
  i64 = 11,
  f64 = 12,
};

/// "u8", "i32", "string", ...; "unknown(<id>)" for ids outside 0..12.
std::string to_string(value_type t);
/// True for the ids 0..12.
bool is_valid(value_type t);

/// ggml tensor type ids as stored in GGUF tensor infos (ggml.h `enum ggml_type`). Ids 4, 5 and
/// 31..33, 36..38 were removed from ggml and are rejected by the reader.
enum class ggml_type : uint32_t {
  f32 = 0,
  f16 = 1,
  q4_0 = 2,
  q4_1 = 3,
  q5_0 = 6,
  q5_1 = 7,
  q8_0 = 8,
  q8_1 = 9,
  q2_k = 10,
  q3_k = 11,
  q4_k = 12,
  q5_k = 13,
  q6_k = 14,
  q8_k = 15,
  iq2_xxs = 16,
  iq2_xs = 17,
  iq3_xxs = 18,
  iq1_s = 19,
  iq4_nl = 20,
  iq3_s = 21,
  iq2_s = 22,
  iq4_xs = 23,
  i8 = 24,
  i16 = 25,
  i32 = 26,
  i64 = 27,
  f64 = 28,
  iq1_m = 29,
  bf16 = 30,
  tq1_0 = 34,
  tq2_0 = 35,
  mxfp4 = 39,
  nvfp4 = 40,
  q1_0 = 41,
  q2_0 = 42,
};

/// Storage geometry of one ggml type: `block_bytes` bytes hold `block_elems` consecutive values
/// along ne0 (1 for plain scalar types).
struct ggml_type_traits {
  ggml_type type;
  std::string_view name;  // ggml's spelling: "q8_0", "q4_K", "iq2_xxs", "bf16", ...
  uint32_t block_elems;
  uint32_t block_bytes;
};

/// The traits of a ggml type id, or nullopt when the id is unknown or removed from ggml.
std::optional<ggml_type_traits> find_ggml_type(uint32_t id);
/// As find_ggml_type, but throws gguf::error for an unknown id.
ggml_type_traits ggml_traits(ggml_type type);
/// ggml's name of a type ("q4_K"), or "unknown(<id>)".
std::string to_string(ggml_type type);
/// Parses ggml's name (case-insensitive: "Q8_0", "q4_k", "IQ2_XXS"); nullopt if unknown.
std::optional<ggml_type> parse_ggml_type(std::string_view name);

/// Bytes of a tensor of `type` with dims (ne0 first). Throws gguf::error when the type is
/// unknown, ne0 is not a multiple of the block size, or the size does not fit in 63 bits.
/// An empty `dims` is rejected (GGUF tensors have 1..4 dims).
uint64_t tensor_nbytes(ggml_type type, std::span<const uint64_t> dims);

/// Largest number of dims a GGUF tensor may have (ggml's GGML_MAX_DIMS).
inline constexpr std::size_t max_dims = 4;
/// Longest tensor name in bytes (ggml's GGML_MAX_NAME is 64 including the terminating NUL).
inline constexpr std::size_t max_tensor_name_bytes = 63;
/// Deepest nesting of metadata arrays the reader accepts (an array of arrays is depth 2).
inline constexpr std::size_t max_array_depth = 8;
/// Most metadata values (each key's value, each array item, nested items too) one file may hold.
/// The DS4 vocabulary and merges are ~260k; the bound keeps a corrupt count in a 150 GB file from
/// parsing gigabytes of tensor data as metadata (each value costs ~40 bytes of memory).
inline constexpr uint64_t max_metadata_values = uint64_t{1} << 24;
/// Alignment of the tensor data section when `general.alignment` is absent.
inline constexpr uint32_t default_alignment = 32;

}  // namespace ordo::gguf
