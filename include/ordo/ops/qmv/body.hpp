/// The phases of qmv that the GPU kernel and the CPU executor both run (ORDO_HD). The tier R
/// only decides how many activation rows share one weight load: the lane split, each lane's
/// accumulation sequence and the combine tree come from (F, Order) alone, and the accumulate
/// statement is the one-row statement (E1, DESIGN §3, §5).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/ops/qmv/problem.hpp"
#include "ordo/order/combine.hpp"

namespace ordo::ops::qmv {

/// The accumulate statement of every qmv path: one dot block's term added to a row's lane value
/// (`w` at the block's weights, `x` its activation block; global memory or staged copies).
template <quant::quant_format F>
ORDO_HD ORDO_FORCEINLINE void accumulate_block(float& acc, const typename F::block* w,
                                               const typename F::activation::block& x) {
  acc = acc + F::dot_block(w, x);
}

/// One lane's accumulation over the blocks [w0, w1) of a reduction of nb dot blocks. `window`
/// points at the weight bytes of block w0 (global memory, or a shared-memory copy of them).
/// The lane adds, in ascending order of its blocks, `acc[i] = acc[i] + term` for every live row i.
template <quant::quant_format F, class Order, int R>
ORDO_HD ORDO_FORCEINLINE void accumulate_window(const std::byte* window, int w0, int w1, int nb, int lane,
                                                const problem& p, float (&acc)[R]) {
  using act_block = typename F::activation::block;
  const order::lane_range range = Order::range(lane, nb, w0, w1);
#pragma unroll 1
  for (int b = range.begin; b < range.end; b += range.step) {
    const auto* w = reinterpret_cast<const typename F::block*>(window + std::size_t(b - w0) * dot_bytes<F>);
#pragma unroll
    for (int i = 0; i < R; ++i) {
      if (i < p.rows) {
        const auto* x = reinterpret_cast<const act_block*>(p.acts + std::size_t(i) * p.act_row_bytes) + b;
        accumulate_block<F>(acc[i], w, *x);
      }
    }
  }
}

/// Combines row i's lane values in the Order's tree and returns out[i][row].
template <class Order, class Lanes>
ORDO_HD ORDO_FORCEINLINE float combine_row(Lanes& lanes) {
  return order::combine<Order>(lanes);
}

#if defined(ORDO_DEVICE_PASS)
/// Warp-cooperative copy of `bytes` from global to shared memory: 16-byte loads when both ends are
/// 16-byte aligned, else 4-byte, else bytes. The branch is uniform across the warp.
ORDO_DEVICE ORDO_FORCEINLINE void copy_window(std::byte* dst, const std::byte* __restrict__ src, std::size_t bytes,
                                              int lane) {
  const auto addr = reinterpret_cast<std::uintptr_t>(src);
  if ((addr & 15) == 0 && (bytes & 15) == 0) {
    auto* d = reinterpret_cast<uint4*>(dst);
    const auto* s = reinterpret_cast<const uint4*>(src);
    for (std::size_t i = lane; i < bytes / 16; i += 32) d[i] = s[i];
  } else if ((addr & 3) == 0 && (bytes & 3) == 0) {
    auto* d = reinterpret_cast<std::uint32_t*>(dst);
    const auto* s = reinterpret_cast<const std::uint32_t*>(src);
    for (std::size_t i = lane; i < bytes / 4; i += 32) d[i] = s[i];
  } else {
    for (std::size_t i = lane; i < bytes; i += 32) dst[i] = src[i];
  }
}
#endif

}  // namespace ordo::ops::qmv
