/// Row copies between host vectors and an arena of the session (the workspace's HC rows and
/// logits). Host and pinned arenas are plain memory to the host: memcpy. A managed arena is
/// copied by the driver (device::upload / download): a host memcpy would move its pages to the
/// host, and the next kernel to touch them would fault them back (the workspace's pages are
/// device-resident between steps, so each step paid two migrations of the HC rows and the logits).
#pragma once
#include <cstddef>
#include <cstring>

#include "ordo/runtime/device_memory.hpp"
#include "ordo/runtime/row_layout.hpp"

namespace ordo::runtime {

/// Which side of a copy the arena is on.
enum class arena_side : bool { destination, source };

/// `rows` rows of `row_bytes` from `src` (stride src_stride) to `dst` (stride dst_stride), one of
/// them memory of an arena of `kind` (`side` says which).
inline void copy_rows(memory_kind kind, arena_side side, void* dst, std::size_t dst_stride, const void* src,
                      std::size_t src_stride, std::size_t row_bytes, std::size_t rows) {
  if (rows == 0) return;
  const auto move = [&](std::byte* d, const std::byte* s, std::size_t n) {
    if (kind != memory_kind::managed) std::memcpy(d, s, n);
    else if (side == arena_side::destination) device::upload(d, s, n);
    else device::download(d, s, n);
  };
  auto* d = static_cast<std::byte*>(dst);
  const auto* s = static_cast<const std::byte*>(src);
  if (kind == memory_kind::managed && dst_stride == src_stride) return move(d, s, (rows - 1) * dst_stride + row_bytes);
  for (std::size_t r = 0; r < rows; ++r) move(d + r * dst_stride, s + r * src_stride, row_bytes);
}

/// Host rows into arena memory `dst`.
inline void copy_rows_in(memory_kind kind, void* dst, std::size_t dst_stride, const void* src, std::size_t src_stride,
                         std::size_t row_bytes, std::size_t rows) {
  copy_rows(kind, arena_side::destination, dst, dst_stride, src, src_stride, row_bytes, rows);
}

/// Arena rows from `src` into host memory `dst`.
inline void copy_rows_out(memory_kind kind, void* dst, std::size_t dst_stride, const void* src, std::size_t src_stride,
                          std::size_t row_bytes, std::size_t rows) {
  copy_rows(kind, arena_side::source, dst, dst_stride, src, src_stride, row_bytes, rows);
}

}  // namespace ordo::runtime
