/// GGUF v3 writer that streams tensor bytes: the metadata and the whole tensor table (name,
/// ggml type, dims) are given up front, offsets are computed and the header is written at once;
/// then every tensor's bytes are accepted in table order (begin_tensor / write / end_tensor, or
/// one call with a producer that fills chunks), size-checked, and padded to the alignment (the
/// last one too: for the same content the bytes equal ggml's gguf_write_to_file). Only one chunk
/// is ever held in memory, so a 150 GB model can be written. The file appears under its name
/// only when finish() succeeds (it is written as `<path>.partial` and renamed), so an
/// interrupted run never leaves a plausible-looking truncated model.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/model/gguf_types.hpp"
#include "ordo/model/gguf_value.hpp"

namespace ordo::gguf {

/// A tensor to be written: what the header records about it.
struct tensor_spec {
  std::string name;
  ggml_type type;
  std::vector<uint64_t> dims;  // ne0 first
};

/// Where writing stands; passed to the progress hook.
struct write_progress {
  std::size_t tensor_index = 0;  // the tensor being written (== tensor_count when finished)
  std::size_t tensor_count = 0;
  uint64_t bytes_written = 0;    // file bytes so far, header included
  uint64_t bytes_total = 0;      // final file size
  std::string_view tensor_name;  // empty once finished
};

class writer {
 public:
  using progress_hook = std::function<void(const write_progress&)>;
  /// Fills `out` with the bytes of the tensor at [offset, offset + out.size()).
  using chunk_producer = std::function<void(uint64_t offset, std::span<std::byte> out)>;

  /// Validates what the reader would (keys and names unique, non-empty, UTF-8 without control
  /// characters, names at most max_tensor_name_bytes; array items of the declared type, nesting
  /// at most max_array_depth, at most max_metadata_values values; `general.alignment`, if
  /// present, a u32 power of two; 1..4 dims, ne0 a multiple of the block size), computes the
  /// layout, creates `<path>.partial` and writes the header. Throws gguf::error naming the path.
  writer(const std::filesystem::path& path, std::vector<key_value> metadata,
         std::vector<tensor_spec> tensors);
  writer(writer&&) noexcept;
  writer& operator=(writer&&) noexcept;
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;
  /// Without a successful finish(), removes `<path>.partial`.
  ~writer();

  /// Called after each write() and end_tensor(), at most once per `every_bytes` of tensor data
  /// (and always at the end of each tensor and at finish()).
  void on_progress(progress_hook hook, uint64_t every_bytes = uint64_t{256} << 20);

  /// The computed table (offset relative to the data section, nbytes; data is null).
  struct layout_entry {
    tensor_spec spec;
    uint64_t offset;
    uint64_t nbytes;
  };
  const std::vector<layout_entry>& layout() const;
  uint32_t alignment() const;
  uint64_t data_offset() const;  // absolute offset of the data section (header size if no tensors)
  uint64_t file_size() const;    // final size

  /// Starts the next tensor; `name` must be the next one of the table (checked).
  void begin_tensor(std::string_view name);
  /// Appends bytes to the current tensor; throws if it would exceed the tensor's nbytes.
  void write(std::span<const std::byte> bytes);
  /// Ends the current tensor; throws unless exactly nbytes were written. Pads to alignment.
  void end_tensor();
  /// begin_tensor + write + end_tensor.
  void write_tensor(std::string_view name, std::span<const std::byte> bytes);
  /// begin_tensor, then calls `produce` on consecutive chunks of at most `chunk_bytes`, then
  /// end_tensor. One chunk buffer is reused.
  void write_tensor(std::string_view name, const chunk_producer& produce,
                    std::size_t chunk_bytes = std::size_t{64} << 20);
  /// Checks that every tensor was written, flushes, closes and renames to the final path.
  void finish();

  /// The whole file in memory (tests, fuzz seeds): `data[i]` are the bytes of `tensors[i]`.
  static std::vector<std::byte> to_bytes(std::vector<key_value> metadata,
                                         std::vector<tensor_spec> tensors,
                                         const std::vector<std::vector<std::byte>>& data);

 private:
  struct impl;
  std::unique_ptr<impl> p_;
  explicit writer(std::unique_ptr<impl> p);
};

/// Writes a small file in one call (tests, tools): data[i] are the bytes of tensors[i].
void write_file(const std::filesystem::path& path, std::vector<key_value> metadata,
                std::vector<tensor_spec> tensors, const std::vector<std::vector<std::byte>>& data);

}  // namespace ordo::gguf
