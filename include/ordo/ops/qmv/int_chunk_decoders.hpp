/// Packed decoders of one 32-element integer chunk of a 256-element K-quant block (IQ2_XXS, Q2_K),
/// for the warp-cooperative qmv arrangement (int_chunk_cooperative.hpp). `decode` turns chunk c of
/// a weight block into 8 words of 4 signed int8 values (element order); `dot` is the chunk's exact
/// integer part against a q8_k activation block from those words and the block's chunk_words,
/// with dot4_i8 (dp4a / sdot4 on a device). Both give exactly the format's own
/// `dot_int_chunk(w, x, c)` (the portable byte loops of quant/<format>.hpp):
/// tests/unit/ops/qmv/int_chunk_decoders_test.cpp checks every chunk of random blocks on the host.
/// Reads the activation's codes as aligned 32-bit words: the caller checks that the activation
/// rows are 4-byte aligned.
#pragma once
#include <cstdint>

#include "ordo/gpu/byte_ops.hpp"
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/portability.hpp"
#include "ordo/quant/int_dot.hpp"
#include "ordo/quant/iq2_xxs.hpp"
#include "ordo/quant/q2_k.hpp"
#include "ordo/quant/q8_k.hpp"

namespace ordo::ops::qmv {

template <class F>
struct int_chunk_decoder {};  // specialized for each format the cooperative kernel runs

namespace detail {
/// Σ over words [0, n) of dot4_i8(w[k], x[k]).
template <int n>
ORDO_HD ORDO_FORCEINLINE std::int32_t dot_words(const std::uint32_t* w, const std::uint32_t* x) {
  std::int32_t s = 0;
#pragma unroll
  for (int k = 0; k < n; ++k) s = gpu::dot4_i8(std::int32_t(w[k]), std::int32_t(x[k]), s);
  return s;
}
/// The sign masks of one IQ2_XXS grid row: 0xff in byte j of lo (hi) where bit j (j + 4) of
/// iq2_signs(s) is set, for the 7 stored sign bits s (< 128). One multiply moves each bit to the
/// top of its byte (s's bits land at distinct positions, so nothing carries) and byte_perm's sign
/// mode widens the top bits to bytes; iq2_signs' bit 7, the parity of s, is bit 0 of popcount(s)
/// shifted to bit 31. 9 integer instructions where iq2_signs then two byte spreads took ~17.
ORDO_HD ORDO_FORCEINLINE void iq2_sign_masks(std::uint32_t s, std::uint32_t& lo, std::uint32_t& hi) {
  lo = gpu::byte_perm(s * 0x10204080u, 0u, 0xBA98u);                              // bit j -> 8j + 7 (j < 4)
  hi = gpu::byte_perm(s * 0x00020408u + (gpu::popcount(s) << 31), 0u, 0xBA98u);  // bit 4 + j -> 8j + 7 (j < 3)
}
}  // namespace detail

/// The tables a chunk decoder reads by default: its format's own (IQ2_XXS: the grid in global
/// memory on a device, the sign masks computed).
struct format_tables {
  static constexpr bool sign_table = false;  // the IQ2_XXS sign masks are computed
};

/// Copies of IQ2_XXS's tables wherever the caller put them (shared memory on a device; filled by
/// fill_iq2_tables): the 256 grid rows and, with SignTable, the 128 sign-mask pairs (lo | hi << 32,
/// as detail::iq2_sign_masks gives them). On a device a grid row is then one shared load at a
/// 32-bit address where the global table took 64-bit address arithmetic, and with SignTable the
/// masks one load where they took 8 integer instructions; the loads may meet bank conflicts
/// (random rows), which is why both are choices.
template <bool SignTable>
struct iq2_copied_tables {
  static constexpr bool sign_table = SignTable;
  static constexpr int words = 256 + (SignTable ? 128 : 0);  // 8-byte words
  const std::uint64_t* grid;   // [256]
  const std::uint64_t* signs;  // [128] after the grid (with SignTable)
};
template <class T>
inline constexpr bool is_iq2_copied = false;
template <bool S>
inline constexpr bool is_iq2_copied<iq2_copied_tables<S>> = true;

/// Fills iq2_copied_tables<SignTable>::words 8-byte words at `at`, the caller's thread t of n
/// taking words t, t + n, …; the tables over them.
template <bool SignTable>
ORDO_HD inline iq2_copied_tables<SignTable> fill_iq2_tables(std::uint64_t* at, int t, int n) {
  for (int i = t; i < iq2_copied_tables<SignTable>::words; i += n) {
    if (i < 256) {
      at[i] = quant::iq2xxs_grid_at(i);
    } else {
      std::uint32_t lo, hi;
      detail::iq2_sign_masks(std::uint32_t(i - 256), lo, hi);
      at[i] = std::uint64_t(lo) | (std::uint64_t(hi) << 32);
    }
  }
  return {at, at + 256};
}

/// The activation codes chunk c of a 256-element block dots against — x.qs[32c .. 32c + 32) as 8
/// words — for both formats below; loaded apart from `dot` so a caller can issue the loads before
/// the weight chunk's decode.
ORDO_HD ORDO_FORCEINLINE void chunk_words(const quant::q8_k::block& x, int c, std::uint32_t (&xw)[8]) {
  const auto* q = reinterpret_cast<const std::uint32_t*>(x.qs + 32 * c);
#pragma unroll
  for (int k = 0; k < 8; ++k) xw[k] = q[k];
}

template <>
struct int_chunk_decoder<quant::iq2_xxs> {
  using F = quant::iq2_xxs;
  using int_sum = F::int_sum;
  /// Grid row l (0..3) of a chunk whose index word is a0 and sign word a1: its 8 unsigned values g
  /// and their sign masks m0, m1 (0xff in each byte whose value is negated).
  template <class Tables>
  ORDO_HD ORDO_FORCEINLINE static void grid_row(std::uint32_t a0, std::uint32_t a1, int l, const Tables& tables, std::uint64_t& g,
                                                std::uint32_t& m0, std::uint32_t& m1) {
    const std::uint32_t index = gpu::byte_perm(a0, 0u, 0x4440u + std::uint32_t(l));  // byte l of a0, one PRMT
    const std::uint32_t sign_bits = (a1 >> (7 * l)) & 127u;
    if constexpr (is_iq2_copied<Tables>) g = tables.grid[index];
    else g = quant::iq2xxs_grid_at(int(index));
    if constexpr (Tables::sign_table) {
      const std::uint64_t m = tables.signs[sign_bits];
      m0 = std::uint32_t(m), m1 = std::uint32_t(m >> 32);
    } else {
      detail::iq2_sign_masks(sign_bits, m0, m1);
    }
  }
  /// Chunk ib: four grid rows of 8 unsigned values (8, 25 or 43: never 0, so the per-byte negation
  /// ~v + 1 below carries into no neighbour), each byte negated where its sign bit is set. Tables:
  /// format_tables or an iq2_copied_tables (the same values).
  template <class Tables = format_tables>
  ORDO_HD ORDO_FORCEINLINE static void decode(const F::block& b, int ib, std::uint32_t (&w)[8], const Tables& tables = {}) {
    const std::uint32_t a0 = F::index_word(b, ib), a1 = F::sign_word(b, ib);
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      std::uint64_t g;
      std::uint32_t m0, m1;
      grid_row(a0, a1, l, tables, g, m0, m1);
      w[2 * l] = (std::uint32_t(g) ^ m0) + (m0 & 0x01010101u);
      w[2 * l + 1] = (std::uint32_t(g >> 32) ^ m1) + (m1 & 0x01010101u);
    }
  }
  /// xw: chunk_words(x, ib).
  ORDO_HD ORDO_FORCEINLINE static int_sum dot(const F::block& b, int ib, const std::uint32_t (&w)[8], const std::uint32_t (&xw)[8],
                                              const quant::q8_k::block&) {
    return (2 * F::scale(b, ib) + 1) * detail::dot_words<8>(w, xw);
  }
  /// dot(decode(b, ib)) against one activation row's words xw, the same integer with fewer
  /// instructions. With m a grid row's sign masks (0xff where the weight is negative), the signed
  /// codes' dot is (g ^ m)·x − m·x, bytes read as int8: g ^ 0xff = −g − 1 and 0xff = −1, so
  /// Σ (g ^ m)·x = Σ_pos g·x − Σ_neg (g + 1)·x and −m·x adds Σ_neg x back. A word then takes one
  /// xor and a second dp4a (into a sum of its own) where decode's (g ^ m) + (m & 1) took three
  /// integer ops before its dp4a: 8 fewer a chunk (the q2 layout's routed passes, one pair each,
  /// are bound by integer issue: ncu, session 21). Exact: every partial sum is an int32 far from
  /// overflow (32 products of |g| <= 43 or 1 and |x| <= 128).
  template <class Tables = format_tables>
  ORDO_HD ORDO_FORCEINLINE static int_sum decode_dot(const F::block& b, int ib, const std::uint32_t (&xw)[8],
                                                     const Tables& tables = {}) {
    const std::uint32_t a0 = F::index_word(b, ib), a1 = F::sign_word(b, ib);
    std::int32_t flipped = 0, negatives = 0;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      std::uint64_t g;
      std::uint32_t m0, m1;
      grid_row(a0, a1, l, tables, g, m0, m1);
      flipped = gpu::dot4_i8(std::int32_t(std::uint32_t(g) ^ m0), std::int32_t(xw[2 * l]), flipped);
      flipped = gpu::dot4_i8(std::int32_t(std::uint32_t(g >> 32) ^ m1), std::int32_t(xw[2 * l + 1]), flipped);
      negatives = gpu::dot4_i8(std::int32_t(m0), std::int32_t(xw[2 * l]), negatives);
      negatives = gpu::dot4_i8(std::int32_t(m1), std::int32_t(xw[2 * l + 1]), negatives);
    }
    return (2 * F::scale(b, ib) + 1) * (flipped - negatives);
  }
};

template <>
struct int_chunk_decoder<quant::q2_k> {
  using F = quant::q2_k;
  using int_sum = F::int_sum;
  /// Chunk c: the 2-bit codes at shift 2·(c % 4) of the 32 code bytes of half c / 4 (no tables).
  ORDO_HD ORDO_FORCEINLINE static void decode(const F::block& b, int c, std::uint32_t (&w)[8]) {
    const auto* q = reinterpret_cast<const std::uint32_t*>(b.qs + 32 * (c / 4));
    const int shift = 2 * (c % 4);
#pragma unroll
    for (int k = 0; k < 8; ++k) w[k] = (q[k] >> shift) & 0x03030303u;
  }
  /// xw: chunk_words(x, c) (sub-block 2c's 16 codes, then 2c + 1's).
  ORDO_HD ORDO_FORCEINLINE static int_sum dot(const F::block& b, int c, const std::uint32_t (&w)[8], const std::uint32_t (&xw)[8],
                                              const quant::q8_k::block& x) {
    const int j0 = 2 * c, j1 = 2 * c + 1;
    const std::int32_t d0 = detail::dot_words<4>(w, xw), d1 = detail::dot_words<4>(w + 4, xw + 4);
    return {(b.scales[j0] & 0x0f) * d0 + (b.scales[j1] & 0x0f) * d1,
            (b.scales[j0] >> 4) * std::int32_t{x.bsums[j0]} + (b.scales[j1] >> 4) * std::int32_t{x.bsums[j1]}};
  }
};

/// Whether the cooperative arrangement has a decoder for F (by its sum type: `decode` may be a
/// template, which a requires-expression cannot name bare — session 18's first build, which asked
/// for `decode`, silently sent the q2 layout down the generic moe passes, 3× slower and exact).
template <class F>
inline constexpr bool has_int_chunk_decoder = requires { typename int_chunk_decoder<F>::int_sum; };

/// Whether decoder Dec has a fused decode_dot for one activation row (IQ2_XXS).
template <class Dec>
inline constexpr bool has_decode_dot =
    requires(const typename Dec::F::block& b, const std::uint32_t (&xw)[8]) { Dec::decode_dot(b, 0, xw); };

}  // namespace ordo::ops::qmv
