/// The host-compiled parts of the int8 mma qmv kernel (int8_mma_tree.hpp), so the CPU tests can
/// check them (tests/unit/ops/qmv/int8_mma_parts_test.cpp): the ls32 butterfly cut into a warp's
/// subtree and the adds of the subtree roots, the exact float of the mma's biased integer, and the
/// Q8_0 block loader that gives a thread its mma A-fragment words and the block's scale.
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
  ORDO_UNROLL
  for (int half = N / 2; half >= 1; half /= 2)
    ORDO_UNROLL
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

/// Where block i of a window (at byte 34·i of a slot row) keeps what a thread-in-group q needs, in
/// the row's 32-bit words: its codes from word `code_word` (two words a fragment word, joined by
/// byte_perm `sel`: 2-byte shifted for even i, the first word for odd i) and its f16 scale in
/// word `scale_word`, `scale_shift` bits up. Only i's parity moves sel and scale_shift.
struct block_words {
  int code_word, scale_word;
  std::uint32_t sel;
  int scale_shift;
  ORDO_HD static constexpr block_words of(int i) {
    const int o = i * quant::q8_0::block_bytes;
    return {(o + 2) >> 2, o >> 2, (o & 2) == 0 ? 0x5432u : 0x3210u, (o & 2) == 0 ? 0 : 16};
  }
};

/// The two A-fragment words (codes 4q..4q+3 and 16+4q..16+4q+3) of a block whose codes for
/// thread-in-group q start at `codes` (the row's word code_word + q) joined by `sel`, and its f16
/// scale's bits from its scale word.
ORDO_HD ORDO_FORCEINLINE void load_block_words(const std::uint32_t* codes, std::uint32_t scale_word, std::uint32_t sel,
                                               int scale_shift, std::uint32_t& lo, std::uint32_t& hi, std::uint16_t& d) {
  lo = gpu::byte_perm(codes[0], codes[1], sel);
  hi = gpu::byte_perm(codes[4], codes[5], sel);
  d = std::uint16_t(scale_word >> scale_shift);
}

}  // namespace ordo::ops::qmv::int8_mma_tree
