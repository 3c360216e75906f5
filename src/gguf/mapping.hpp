/// Read-only memory map of a whole file (RAII), or an owned in-memory image standing in for one.
#pragma once
#include <cstddef>
#include <filesystem>
#include <span>
#include <vector>

namespace ordo::gguf::detail {

class mapping {
 public:
  /// Maps `path` read-only and private. Throws gguf::error "<path>: ..." on failure. An empty
  /// file gives an empty span (mmap cannot map zero bytes).
  static mapping map_file(const std::filesystem::path& path);
  static mapping own(std::vector<std::byte> bytes);

  mapping() = default;
  mapping(mapping&& o) noexcept;
  mapping& operator=(mapping&& o) noexcept;
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;
  ~mapping();

  std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  void release() noexcept;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;  // data_ came from mmap (else it points into owned_)
  std::vector<std::byte> owned_;
};

}  // namespace ordo::gguf::detail
