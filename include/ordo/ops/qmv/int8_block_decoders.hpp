/// Device-side decoders of one weight block into the operands of its exact integer dot against a
/// q8_32 activation block: a float scale and the 32 weight codes as 8 packed int8 words, word m
/// pairing with activation code word m (codes 4m..4m+3). The format's dot is then
///   (scale · x.d) · (float)Σ dp4a(q[m], x.qs word m)
/// which is quant::q8_0::dot_scale / quant::mxfp4::dot_scale over dot_int, statement for statement.
/// A decoder reads its block from a shared-memory stage at byte offset `o` (any offset it accepts,
/// see row_bytes_ok), with aligned 32-bit loads only. CUDA device code (byte permutes, funnel shifts).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/mxfp4.hpp"
#include "ordo/quant/q8_0.hpp"

namespace ordo::ops::qmv {

/// Q8_0, 34-byte blocks {f16 d; int8 qs[32]}: every block starts at an even offset when the row
/// stride is even (it always is for whole blocks), so 9 words and one byte permute per word.
struct q8_0_decoder {
  using format = quant::q8_0;
  static constexpr int block_bytes = format::block_bytes;
  static constexpr bool row_bytes_ok(std::size_t row_bytes) { return (row_bytes & 1) == 0; }
#if defined(ORDO_GPU_CUDA) && defined(ORDO_DEVICE_PASS)
  static ORDO_DEVICE ORDO_FORCEINLINE void decode(const std::byte* stage, int o, float& scale, std::uint32_t (&q)[8]) {
    const auto* w32 = reinterpret_cast<const std::uint32_t*>(stage + (o & ~3));
    std::uint32_t w[9];
#pragma unroll
    for (int i = 0; i < 9; ++i) w[i] = w32[i];
    const bool high = (o & 2) != 0;  // d in the high half of w[0], codes word-aligned from w[1]
    scale = numeric::f16_to_f32(std::uint16_t(high ? w[0] >> 16 : w[0] & 0xffffu));
    const unsigned sel = high ? 0x7654u : 0x5432u;
#pragma unroll
    for (int i = 0; i < 8; ++i) q[i] = __byte_perm(w[i], w[i + 1], sel);
  }
#endif
};

/// MXFP4, 17-byte blocks {u8 e; u8 qs[16]} at any byte offset: 5 words, funnel-shifted to the block,
/// and each nibble mapped to its doubled E2M1 value by byte permutes over an 16-entry table
/// (quant::mxfp4::kvalue). qs word m's low nibbles are elements 4m..4m+3, its high nibbles
/// elements 16+4m..16+4m+3.
struct mxfp4_decoder {
  using format = quant::mxfp4;
  static constexpr int block_bytes = format::block_bytes;
  static constexpr bool row_bytes_ok(std::size_t) { return true; }
#if defined(ORDO_GPU_CUDA) && defined(ORDO_DEVICE_PASS)
  /// The doubled E2M1 values of the 8 nibbles of v: .x = low nibbles (bytes 0..3), .y = high nibbles.
  static ORDO_DEVICE ORDO_FORCEINLINE uint2 kvalues(std::uint32_t v) {
    // kvalue(n) for n = 0..15 as int8 bytes: {0,1,2,3} {4,6,8,12} {0,-1,-2,-3} {-4,-6,-8,-12}
    constexpr std::uint32_t t0 = 0x03020100u, t1 = 0x0c080604u, t2 = 0xfdfeff00u, t3 = 0xf4f8fafcu;
    // The 8 nibbles unzipped into one word: low nibbles of bytes 0..3 in bits 0..15, high nibbles
    // in bits 16..31 (bytes of lo | lo >> 4 hold nibble pairs; bytes 0 and 2 of each are taken).
    const std::uint32_t lo = v & 0x0f0f0f0fu, hi = (v >> 4) & 0x0f0f0f0fu;
    const std::uint32_t n = __byte_perm(lo | (lo >> 4), hi | (hi >> 4), 0x6420u);
    // byte_perm selects with the low 3 bits of each selector nibble (the code's magnitude index);
    // bit 3 (the sign) picks the byte of the negative table
    const std::uint32_t sel = n & 0x77777777u, pick = 0x32103210u | ((n >> 1) & 0x44444444u);
    auto lookup = [&](std::uint32_t s, std::uint32_t k) { return __byte_perm(__byte_perm(t0, t1, s), __byte_perm(t2, t3, s), k); };
    return make_uint2(lookup(sel, pick), lookup(sel >> 16, pick >> 16));
  }
  static ORDO_DEVICE ORDO_FORCEINLINE void decode(const std::byte* stage, int o, float& scale, std::uint32_t (&q)[8]) {
    const auto* w32 = reinterpret_cast<const std::uint32_t*>(stage + (o & ~3));
    std::uint32_t w[6];
#pragma unroll
    for (int i = 0; i < 5; ++i) w[i] = w32[i];
    w[5] = 0;
    const unsigned shift = 8u * unsigned(o & 3);
    std::uint32_t a[5];  // bytes o + 4i .. o + 4i + 3
#pragma unroll
    for (int i = 0; i < 5; ++i) a[i] = __funnelshift_r(w[i], w[i + 1], shift);
    scale = numeric::e8m0_to_f32_half(std::uint8_t(a[0] & 0xffu));
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      const std::uint32_t qs = __funnelshift_r(a[m], a[m + 1], 8);  // qs bytes 4m..4m+3
      const uint2 v = kvalues(qs);
      q[m] = v.x;
      q[m + 4] = v.y;
    }
  }
#endif
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

}  // namespace ordo::ops::qmv
