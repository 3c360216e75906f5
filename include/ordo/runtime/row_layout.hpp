/// Rows strided at allocation width (DESIGN §5): every buffer of the runtime (sequence state,
/// workspace) is `rows` rows of `row_bytes` live bytes, each starting `stride` bytes after the
/// previous one. The stride is the row width rounded up to the allocation alignment, never the
/// tensor width, so kernels must use it; tests choose a `pad` that makes stride and width differ.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

namespace ordo::runtime {

/// How rows are strided: stride = align_up(row_bytes + pad, align). `align` is a power of two.
struct alloc_policy {
  uint64_t align = 256;  // GPU-friendly: every row starts on a 256-byte boundary
  uint64_t pad = 0;      // extra bytes per row before alignment (tests: strides wider than rows)
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

/// An owned, zeroed, aligned host allocation.
class host_arena {
 public:
  host_arena() = default;
  explicit host_arena(uint64_t bytes, uint64_t align = 256)
      : bytes_(bytes),
        data_(static_cast<std::byte*>(::operator new(bytes ? bytes : 1, std::align_val_t(align))), deleter{align}) {
    std::memset(data_.get(), 0, bytes);
  }
  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }
  uint64_t size() const { return bytes_; }

 private:
  struct deleter {
    uint64_t align;
    void operator()(std::byte* p) const { ::operator delete(p, std::align_val_t(align)); }
  };
  uint64_t bytes_ = 0;
  std::unique_ptr<std::byte[], deleter> data_{nullptr, deleter{256}};
};

}  // namespace ordo::runtime
