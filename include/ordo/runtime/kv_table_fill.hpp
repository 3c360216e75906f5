/// The KV table of a layer step (docs/engine.md §8), filled where the step's entries run: row k
/// of the table is a copy of one state row — a raw-ring row (F16 bits → f32, exact) or a
/// compressed row (f32, copied). The host decides which rows (the table's source list: the raw
/// window, then each compressed row the first time a list names it); the executor copies them
/// (`ex.fill`: the CPU executors on the host, the GPU executor in one launch), so on the GPU no
/// state row travels to the host and back. A copy and an exact conversion: the table's bits are
/// the same on every executor.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"

namespace ordo::runtime {

struct kv_table_fill {
  float* table;                // [n][table_stride] floats
  std::size_t table_stride;    // >= width
  const std::uint16_t* ring;   // the raw ring: slot s at ring + s · ring_stride (F16 bits)
  std::size_t ring_stride;     // in uint16 elements
  const float* rows;           // compressed row c at rows + c · rows_stride (null: the layer has none)
  std::size_t rows_stride;     // in floats
  const std::int32_t* source;  // [n]: c >= 0: compressed row c; −1 − s: raw ring slot s
  int n;                       // table rows to fill
  int width;                   // floats per row (head_dim)
};

/// Table row k's source list entry for raw ring slot s.
ORDO_HD ORDO_FORCEINLINE std::int32_t ring_source(std::int64_t slot) { return static_cast<std::int32_t>(-1 - slot); }

/// Elements first, first + step, … of table row k.
ORDO_HD ORDO_FORCEINLINE void fill_table_row(const kv_table_fill& f, int k, int first, int step) {
  const std::int32_t s = f.source[k];
  float* dst = f.table + std::size_t(k) * f.table_stride;
  if (s >= 0) {
    const float* src = f.rows + std::size_t(s) * f.rows_stride;
    for (int e = first; e < f.width; e += step) dst[e] = src[e];
  } else {
    const std::uint16_t* src = f.ring + std::size_t(-1 - s) * f.ring_stride;
    for (int e = first; e < f.width; e += step) dst[e] = numeric::f16_to_f32(src[e]);  // exact
  }
}

/// The whole table on the host.
inline void fill_table_on_host(const kv_table_fill& f) {
  for (int k = 0; k < f.n; ++k) fill_table_row(f, k, 0, 1);
}

}  // namespace ordo::runtime
