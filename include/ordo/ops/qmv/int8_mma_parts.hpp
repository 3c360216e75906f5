/// The host-compiled parts of the int8 mma qmv kernel (int8_mma_tree.hpp), so the CPU tests can
/// check them (tests/unit/ops/qmv/int8_mma_parts_test.cpp): the ls32 butterfly cut into a warp's
/// subtree and the adds of the subtree roots, and the Q8_0 block loader that gives a thread its
/// mma A-fragment words and the block's scale.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>

#include "ordo/gpu/byte_ops.hpp"
#include "ordo/gpu/portability.hpp"
#include "ordo/ops/qmv/int8_block_decoders.hpp"
#include "ordo/quant/q8_0.hpp"

namespace ordo::ops::qmv::int8_mma_tree {

/// The butterfly's subtree of one warp (leaves[m] = leaf w + S·m, n = 32/S of them, in place):
/// leaves m and m + n/2 first (the butterfly's offset 16), then halves; the root is leaves[0].
template <int N>
ORDO_HD ORDO_FORCEINLINE void add_subtree(float (&leaves)[N]) {
#pragma unroll
  for (int half = N / 2; half >= 1; half /= 2)
#pragma unroll
    for (int m = 0; m < half; ++m) leaves[m] = leaves[m] + leaves[m + half];
}
/// The S subtree roots (roots[w]: the node whose leaves are ≡ w mod S) added in the rest of the
/// butterfly's tree (roots w and w + S/2 first, then halves): the same adds as add_subtree over
/// the roots, so add_subtree serves both; order::combine<ls32> of the 32 leaves is the result.
template <int S>
ORDO_HD ORDO_FORCEINLINE float add_roots(float (&roots)[S]) {
  add_subtree(roots);
  return roots[0];
}

/// float(isum) without the conversion unit (an eighth of the FP32 rate on sm_90): the mma adds
/// its integer dots to `biased_zero`, the bits of 1.5·2^23, and for |isum| < 2^22 those bits are
/// the float 1.5·2^23 + isum, exactly, so subtracting 1.5·2^23 leaves float(isum), exactly (dots of
/// 32 int8 pairs stay under 2^20).
inline constexpr std::int32_t biased_zero = 0x4B400000;
ORDO_HD ORDO_FORCEINLINE float float_of_biased(std::int32_t biased) {
  return std::bit_cast<float>(biased) - 12582912.0f;
}

/// Row `row`'s block `i` of a slot (the window's block i at byte 34·i): the scale and the two A
/// fragment words of thread-in-group q (codes 4q..4q+3 and 16+4q..16+4q+3), from aligned words.
ORDO_HD ORDO_FORCEINLINE void load_weight_block(const std::byte* row, int i, int q, float& scale, std::uint32_t& lo,
                                              std::uint32_t& hi) {
  const int o = i * quant::q8_0::block_bytes;
  const auto* w = reinterpret_cast<const std::uint32_t*>(row + (o & ~3));
  if ((o & 2) == 0) {  // d in the low half of w[0], codes from byte 2
    scale = f16_scale_to_f32(std::uint16_t(w[0] & 0xffffu));
    lo = gpu::byte_perm(w[q], w[q + 1], 0x5432u);
    hi = gpu::byte_perm(w[q + 4], w[q + 5], 0x5432u);
  } else {  // d in the high half of w[0], codes word-aligned from w[1]
    scale = f16_scale_to_f32(std::uint16_t(w[0] >> 16));
    lo = w[q + 1];
    hi = w[q + 5];
  }
}

}  // namespace ordo::ops::qmv::int8_mma_tree
