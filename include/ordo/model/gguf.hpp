/// GGUF v3 reader: maps a file read-only and validates it completely before returning, so that
/// every later access (metadata, tensor table, tensor bytes) is in bounds. Validation names the
/// problem and where it is: bad magic or version, truncation, counts or lengths larger than the
/// bytes left, unknown value or ggml types, too deep arrays, duplicate keys or tensor names, keys
/// or names that are empty, not UTF-8, hold control characters or are too long, ne0 not a
/// multiple of the block size, size overflow, misaligned offsets, data past the end of the file,
/// overlapping tensors. Including this header gives the whole GGUF API (value, writer).
/// Implemented in src/gguf (library `ordo_gguf`).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/model/gguf_types.hpp"
#include "ordo/model/gguf_value.hpp"
#include "ordo/model/gguf_writer.hpp"

namespace ordo::gguf {

/// One entry of the tensor table, validated.
struct tensor_info {
  std::string name;
  ggml_type type;
  std::vector<uint64_t> dims;    // ne0 first (ne0 is the contiguous row), 1..4 entries
  uint64_t offset = 0;           // from the start of the data section, as stored in the file
  uint64_t nbytes = 0;           // from dims and the type's block geometry
  // Into the mapping, valid while the gguf::file lives. From file::open it is aligned to
  // alignment() (the mapping is page-aligned); from_bytes gives only the allocator's alignment.
  const std::byte* data = nullptr;

  uint64_t elements() const;     // product of dims
  std::span<const std::byte> bytes() const { return {data, static_cast<std::size_t>(nbytes)}; }
};

class file {
 public:
  /// Maps and validates `path`. Throws gguf::error whose message starts with the path.
  static file open(const std::filesystem::path& path);
  /// Validates an in-memory image (the fuzzer, tests); `name` stands for the path in messages.
  static file from_bytes(std::vector<std::byte> bytes, std::string name = "<memory>");

  file(file&&) noexcept;
  file& operator=(file&&) noexcept;
  file(const file&) = delete;
  file& operator=(const file&) = delete;
  ~file();

  /// The path (or the name given to from_bytes).
  const std::string& name() const;
  uint32_t version() const;  // always 3
  /// Tensor data alignment: `general.alignment` or 32.
  uint32_t alignment() const;
  /// Absolute file offset of the tensor data section.
  uint64_t data_offset() const;
  /// The whole file.
  std::span<const std::byte> bytes() const;

  /// Metadata entries in file order.
  const std::vector<key_value>& metadata() const;
  /// The value of `key`, or nullptr.
  const value* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }
  /// The value of `key`; throws gguf::error "<path>: metadata key '<key>' is missing".
  const value& at(std::string_view key) const;

  // Typed getters: throw gguf::error naming the path, the key, the expected and actual type.
  // Integer getters accept any integer width whose value fits; float getters f32 or f64.
  uint32_t get_u32(std::string_view key) const;
  int32_t get_i32(std::string_view key) const;
  uint64_t get_u64(std::string_view key) const;
  int64_t get_i64(std::string_view key) const;
  float get_f32(std::string_view key) const;
  double get_f64(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  const std::string& get_string(std::string_view key) const;
  /// Array of T (see value::to_vector for the accepted T and conversions).
  template <class T>
  std::vector<T> get_array(std::string_view key) const;

  /// Tensor table in file order.
  const std::vector<tensor_info>& tensors() const;
  /// The tensor called `name`, or nullptr.
  const tensor_info* find_tensor(std::string_view name) const;
  /// The tensor called `name`; throws gguf::error "<path>: tensor '<name>' is missing".
  const tensor_info& tensor(std::string_view name) const;

 private:
  struct impl;
  explicit file(std::unique_ptr<impl> p);
  [[noreturn]] void rethrow_for_key(std::string_view key, const error& e) const;
  std::unique_ptr<impl> p_;
};

template <class T>
std::vector<T> file::get_array(std::string_view key) const {
  const value& v = at(key);
  try {
    return v.to_vector<T>();
  } catch (const error& e) {
    rethrow_for_key(key, e);
  }
}

}  // namespace ordo::gguf
