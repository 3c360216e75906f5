/// The one phase of quantize_rows (ORDO_HD, GPU and CPU): block b of row r. One block depends only
/// on its own 32 or 256 floats, so a row's blocks are the same whatever else is in the batch.
#pragma once
#include "ordo/gpu/portability.hpp"
#include "ordo/ops/quantize_rows/problem.hpp"

namespace ordo::ops::quantize_rows {

template <quant::activation_format A>
ORDO_HD ORDO_FORCEINLINE void quantize_block(const problem& p, int r, int b) {
  A::quantize(p.x + std::size_t(r) * p.x_stride + std::size_t(b) * A::block_elems,
              reinterpret_cast<typename A::block*>(p.out + std::size_t(r) * p.out_row_bytes)[b]);
}

}  // namespace ordo::ops::quantize_rows
