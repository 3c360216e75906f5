/// Rows strided at allocation width (DESIGN §5): every buffer of the runtime (sequence state,
/// workspace) is `rows` rows of `row_bytes` live bytes, each starting `stride` bytes after the
/// previous one. The stride is the row width rounded up to the allocation alignment, never the
/// tensor width, so kernels must use it; tests choose a `pad` that makes stride and width differ.
/// The policy also says where the bytes live: host memory for the CPU executor, managed memory
/// (device_memory.hpp) for the GPU executor, which host code reads after a stream synchronize.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "ordo/runtime/device_memory.hpp"

namespace ordo::runtime {

/// Where an arena's bytes live.
enum class memory_kind : uint8_t {
  host,     // operator new: the CPU executor
  managed,  // device::memory::managed: the GPU executor (kernels and the step's host loops)
  pinned,   // device::memory::pinned: the same, page-locked host memory the device maps
};

/// How rows are strided: stride = align_up(row_bytes + pad, align). `align` is a power of two.
struct alloc_policy {
  uint64_t align = 256;  // GPU-friendly: every row starts on a 256-byte boundary
  uint64_t pad = 0;      // extra bytes per row before alignment (tests: strides wider than rows)
  memory_kind memory = memory_kind::host;
};

inline constexpr uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

struct row_layout {
  uint64_t rows = 0;
  uint64_t row_bytes = 0;  // live bytes of a row (tensor width × element size)
  uint64_t stride = 0;     // bytes from one row to the next (allocation width)
  uint64_t bytes() const { return rows * stride; }
};

inline row_layout make_row_layout(uint64_t rows, uint64_t row_bytes, const alloc_policy& p) {
  return {rows, row_bytes, rows ? align_up(row_bytes + p.pad, p.align) : 0};
}

/// An owned, zeroed, aligned allocation in host, managed or pinned memory (the driver aligns the
/// last two to at least 256 bytes; `align` above that is refused for them).
class memory_arena {
 public:
  memory_arena() = default;
  explicit memory_arena(uint64_t bytes, uint64_t align = 256, memory_kind kind = memory_kind::host)
      : bytes_(bytes), data_(allocate(bytes, align, kind), deleter{align, kind}) {
    std::memset(data_.get(), 0, bytes);
  }
  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }
  uint64_t size() const { return bytes_; }
  memory_kind kind() const { return data_.get_deleter().kind; }

 private:
  static std::byte* allocate(uint64_t bytes, uint64_t align, memory_kind kind) {
    if (kind == memory_kind::host) return static_cast<std::byte*>(::operator new(bytes ? bytes : 1, std::align_val_t(align)));
    if (align > 256) throw std::invalid_argument("memory_arena: driver memory is aligned to 256 bytes, not " + std::to_string(align));
    return static_cast<std::byte*>(device::allocate(bytes, device_kind(kind)));
  }
  static device::memory device_kind(memory_kind k) {
    return k == memory_kind::pinned ? device::memory::pinned : device::memory::managed;
  }
  struct deleter {
    uint64_t align;
    memory_kind kind;
    void operator()(std::byte* p) const {
      if (kind == memory_kind::host) ::operator delete(p, std::align_val_t(align));
      else device::release(p, device_kind(kind));
    }
  };
  uint64_t bytes_ = 0;
  std::unique_ptr<std::byte[], deleter> data_{nullptr, deleter{256, memory_kind::host}};
};

}  // namespace ordo::runtime
