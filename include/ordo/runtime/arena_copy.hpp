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

/// `rows` rows of `row_bytes`, from `src` (stride src_stride) into arena memory `dst` (stride dst_stride).
inline void copy_rows_in(memory_kind kind, void* dst, std::size_t dst_stride, const void* src, std::size_t src_stride,
                         std::size_t row_bytes, std::size_t rows) {
  auto* d = static_cast<std::byte*>(dst);
  const auto* s = static_cast<const std::byte*>(src);
  if (rows == 0) return;
  if (kind == memory_kind::managed && dst_stride == src_stride) return device::upload(d, s, (rows - 1) * dst_stride + row_bytes);
  for (std::size_t r = 0; r < rows; ++r) {
    if (kind == memory_kind::managed)
      device::upload(d + r * dst_stride, s + r * src_stride, row_bytes);
    else
      std::memcpy(d + r * dst_stride, s + r * src_stride, row_bytes);
  }
}

/// `rows` rows of `row_bytes`, from arena memory `src` (stride src_stride) into host `dst` (stride dst_stride).
inline void copy_rows_out(memory_kind kind, void* dst, std::size_t dst_stride, const void* src, std::size_t src_stride,
                          std::size_t row_bytes, std::size_t rows) {
  auto* d = static_cast<std::byte*>(dst);
  const auto* s = static_cast<const std::byte*>(src);
  if (rows == 0) return;
  if (kind == memory_kind::managed && dst_stride == src_stride) return device::download(d, s, (rows - 1) * dst_stride + row_bytes);
  for (std::size_t r = 0; r < rows; ++r) {
    if (kind == memory_kind::managed)
      device::download(d + r * dst_stride, s + r * src_stride, row_bytes);
    else
      std::memcpy(d + r * dst_stride, s + r * src_stride, row_bytes);
  }
}

}  // namespace ordo::runtime
