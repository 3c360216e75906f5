/// Decoders of one weight block into the operands of its exact integer dot against a q8_32
/// activation block: a float scale and the weight codes as `words` packed int8 words that `dot`
/// pairs with the 8 words of the activation's codes after `arrange_x` (the identity for Q8_0; MXFP4
/// decodes its nibbles in storage order and moves the activation's bytes to them instead). The
/// format's dot is then
///   (scale · x.d) · (float)dot(q, arranged x)     (dot: Σ_k dp4a(q[k], x word k), or for the
///                                                  split-sign MXFP4 decoder Σ pos − Σ neg)
/// which is quant::q8_0::dot_scale / quant::mxfp4::dot_scale over dot_int, statement for statement:
/// the integer sum pairs every weight code with its own activation code, so it is dot_int's integer
/// whatever the pairing of words (exact; |Σ| < 2^20). A decoder reads its block from a
/// shared-memory stage at byte offset `o` (any offset it accepts, see row_bytes_ok) with aligned
/// 32-bit loads (and MXFP4's scale byte). Host-compiled too (gpu/byte_ops.hpp), where
/// tests/unit/ops/qmv/int8_block_decoders_test.cpp checks them against dot_int at every offset.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ordo/gpu/byte_ops.hpp"
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/ops/qmv/f16_scales.hpp"
#include "ordo/quant/mxfp4.hpp"
#include "ordo/quant/q8_0.hpp"

namespace ordo::ops::qmv {

/// Σ_k dp4a(q[k], x[k]) over the 8 words (exact).
ORDO_HD ORDO_FORCEINLINE std::int32_t dot_words(const std::uint32_t* q, const std::uint32_t (&x)[8]) {
  std::int32_t isum = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) isum = gpu::dot4_i8(std::int32_t(q[k]), std::int32_t(x[k]), isum);
  return isum;
}

/// Q8_0, 34-byte blocks {f16 d; int8 qs[32]}: every block starts at an even offset when the row
/// stride is even (it always is for whole blocks), so 9 words and one byte permute per word.
struct q8_0_decoder {
  using format = quant::q8_0;
  static constexpr int block_bytes = format::block_bytes;
  static constexpr bool arranges_x = false;
  static constexpr int words = 8;
  static constexpr bool row_bytes_ok(std::size_t row_bytes) { return (row_bytes & 1) == 0; }
  ORDO_HD ORDO_FORCEINLINE static void arrange_x(std::uint32_t (&)[8]) {}
  ORDO_HD ORDO_FORCEINLINE static std::int32_t dot(const std::uint32_t (&q)[words], const std::uint32_t (&x)[8]) {
    return dot_words(q, x);
  }
  ORDO_HD ORDO_FORCEINLINE static void decode(const std::byte* stage, int o, float& scale, std::uint32_t (&q)[8]) {
    const auto* w32 = reinterpret_cast<const std::uint32_t*>(stage + (o & ~3));
    std::uint32_t w[9];
#pragma unroll
    for (int i = 0; i < 9; ++i) w[i] = w32[i];
    const bool high = (o & 2) != 0;  // d in the high half of w[0], codes word-aligned from w[1]
    scale = f16_scale_to_f32(std::uint16_t(high ? w[0] >> 16 : w[0] & 0xffffu));
    const std::uint32_t sel = high ? 0x7654u : 0x5432u;
#pragma unroll
    for (int i = 0; i < 8; ++i) q[i] = gpu::byte_perm(w[i], w[i + 1], sel);
  }
};

/// MXFP4, 17-byte blocks {u8 e; u8 qs[16]} at any byte offset. qs byte j holds element j (low
/// nibble) and element 16 + j (high nibble); a code word is decoded in that storage order — word
/// 2m is elements {4m, 16+4m, 4m+1, 17+4m}, word 2m+1 elements {4m+2, 18+4m, 4m+3, 19+4m} — and
/// arrange_x puts the activation's bytes in the same order (once per staged block, or per load).
struct mxfp4_decoder {
  using format = quant::mxfp4;
  static constexpr int block_bytes = format::block_bytes;
  static constexpr bool arranges_x = true;
  static constexpr int words = 8;
  static constexpr bool row_bytes_ok(std::size_t) { return true; }
  ORDO_HD ORDO_FORCEINLINE static std::int32_t dot(const std::uint32_t (&q)[words], const std::uint32_t (&x)[8]) {
    return dot_words(q, x);
  }
  /// Activation code words in decode's order: word 2m takes bytes 0, 1 of x words m and m + 4.
  ORDO_HD ORDO_FORCEINLINE static void arrange_x(std::uint32_t (&x)[8]) {
    std::uint32_t a[8];
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      a[2 * m] = gpu::byte_perm(x[m], x[m + 4], 0x5140u);
      a[2 * m + 1] = gpu::byte_perm(x[m], x[m + 4], 0x7362u);
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = a[k];
  }
  /// The doubled E2M1 values (quant::mxfp4::kvalue) of the 8 nibbles of v, in storage order: lo =
  /// the nibbles of bytes 0 and 1, hi = those of bytes 2 and 3.
  ORDO_HD ORDO_FORCEINLINE static void kvalues(std::uint32_t v, std::uint32_t& lo, std::uint32_t& hi) {
    // kvalue(n) as int8 bytes: n = 0..7 {0,1,2,3} {4,6,8,12}, n = 8..15 {0,-1,-2,-3} {-4,-6,-8,-12}
    constexpr std::uint32_t t0 = 0x03020100u, t1 = 0x0c080604u, t2 = 0xfdfeff00u, t3 = 0xf4f8fafcu;
    // A nibble selects byte n & 7 of a table; bit 3 clear copies it (byte_perm's sign mode
    // replaces it otherwise). So the positive table takes the codes as they are, the negative
    // table the codes with bit 3 flipped, and `pick` takes byte i from the one that copied it.
    const std::uint32_t vn = v ^ 0x88888888u;
    const std::uint32_t pick = 0x32103210u | ((v >> 1) & 0x44444444u);
    lo = gpu::byte_perm(gpu::byte_perm(t0, t1, v), gpu::byte_perm(t2, t3, vn), pick);
    hi = gpu::byte_perm(gpu::byte_perm(t0, t1, v >> 16), gpu::byte_perm(t2, t3, vn >> 16), pick >> 16);
  }
  /// The block's scale and its 4 code words (storage order) at stage offset o.
  ORDO_HD ORDO_FORCEINLINE static void code_words(const std::byte* stage, int o, float& scale, std::uint32_t (&v)[4]) {
    scale = numeric::e8m0_to_f32_half(std::uint8_t(stage[o]));
    const int c = o + 1;  // the codes: 16 bytes from c, in words from the 4-byte boundary below
    const auto* w32 = reinterpret_cast<const std::uint32_t*>(stage + (c & ~3));
    std::uint32_t w[5];
#pragma unroll
    for (int i = 0; i < 5; ++i) w[i] = w32[i];
    const unsigned shift = 8u * unsigned(c & 3);
#pragma unroll
    for (int m = 0; m < 4; ++m) v[m] = gpu::funnel_shift_r(w[m], w[m + 1], shift);
  }
  ORDO_HD ORDO_FORCEINLINE static void decode(const std::byte* stage, int o, float& scale, std::uint32_t (&q)[words]) {
    std::uint32_t v[4];
    code_words(stage, o, scale, v);
#pragma unroll
    for (int m = 0; m < 4; ++m) kvalues(v[m], q[2 * m], q[2 * m + 1]);
  }
};

/// MXFP4 for one or two activation rows: the magnitudes of the positive codes and those of the
/// negative codes as words of their own (q[0..8) and q[8..16)), the sign applied by subtracting
/// the second dot. A code word takes 4 byte permutes and 3 shifts/xors instead of 6 permutes and 6
/// other ops (no pick selector), for 2 more dp4a per activation row: fewer instructions of the
/// integer pipe, which bounds the streamed passes at one row (ncu, session 9), and more
/// where many rows share the decode (mxfp4_decoder there). The integer is dot_int's, as above.
struct mxfp4_split_decoder : mxfp4_decoder {
  static constexpr int words = 16;
  ORDO_HD ORDO_FORCEINLINE static std::int32_t dot(const std::uint32_t (&q)[words], const std::uint32_t (&x)[8]) {
    return dot_words(q, x) - dot_words(q + 8, x);
  }
  /// |kvalue| of each nibble of v where its code is positive (bit 3 clear: copied from the
  /// magnitude table; set: the table byte's sign, 0), and where it is negative (the same with bit 3
  /// flipped), in storage order as mxfp4_decoder::kvalues.
  ORDO_HD ORDO_FORCEINLINE static void magnitudes(std::uint32_t v, std::uint32_t (&pos)[2], std::uint32_t (&neg)[2]) {
    constexpr std::uint32_t t0 = 0x03020100u, t1 = 0x0c080604u;  // {0,1,2,3} {4,6,8,12}
    const std::uint32_t vn = v ^ 0x88888888u;
    pos[0] = gpu::byte_perm(t0, t1, v), pos[1] = gpu::byte_perm(t0, t1, v >> 16);
    neg[0] = gpu::byte_perm(t0, t1, vn), neg[1] = gpu::byte_perm(t0, t1, vn >> 16);
  }
  ORDO_HD ORDO_FORCEINLINE static void decode(const std::byte* stage, int o, float& scale, std::uint32_t (&q)[words]) {
    std::uint32_t v[4];
    code_words(stage, o, scale, v);
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      std::uint32_t pos[2], neg[2];
      magnitudes(v[m], pos, neg);
      q[2 * m] = pos[0], q[2 * m + 1] = pos[1], q[8 + 2 * m] = neg[0], q[8 + 2 * m + 1] = neg[1];
    }
  }
};

/// The decoder of format F (void where F has none): qmv's and moe's streaming kernels pick by it.
template <class F>
struct int8_decoder_of {
  using type = void;
};
template <>
struct int8_decoder_of<quant::q8_0> {
  using type = q8_0_decoder;
};
template <>
struct int8_decoder_of<quant::mxfp4> {
  using type = mxfp4_decoder;
};
template <class F>
using int8_decoder = typename int8_decoder_of<F>::type;
template <class F>
inline constexpr bool has_int8_decoder = !std::is_void_v<int8_decoder<F>>;

/// The decoder the streaming kernels use for F at tier R: the split-sign MXFP4 one up to this many
/// activation rows, where its extra dp4a cost less than the permutes it saves.
inline constexpr int mxfp4_split_max_rows = 2;
template <class F, int R>
using int8_decoder_at =
    std::conditional_t<std::is_same_v<F, quant::mxfp4> && R <= mxfp4_split_max_rows, mxfp4_split_decoder, int8_decoder<F>>;

}  // namespace ordo::ops::qmv
