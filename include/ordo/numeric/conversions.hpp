/// Conversions between float and the narrow formats DS4's GGUF files store: f16, bf16, the E8M0
/// block scale of MXFP4, E4M3 (FN variant) and the E2M1 nibble. Every function is integer bit
/// manipulation (plus, where noted, one exact float multiply), `constexpr` and `ORDO_HD`, so the
/// host executor, nvcc and hip-clang produce the same bits by construction (DESIGN §4). Encoders
/// round to nearest, ties to even (RNE) unless a function says otherwise; each function documents
/// its special cases.
#pragma once

#include <cstdint>

#include "ordo/gpu/portability.hpp"

namespace ordo::numeric {

namespace detail {

ORDO_HD constexpr std::uint32_t bits_of(float f) { return __builtin_bit_cast(std::uint32_t, f); }
ORDO_HD constexpr float float_of(std::uint32_t u) { return __builtin_bit_cast(float, u); }

/// `value >> shift` rounded to nearest, ties to even, for 1 <= shift <= 31. Used by every encoder
/// that drops low mantissa bits, so all of them share one tie rule.
ORDO_HD constexpr std::uint32_t shift_right_rne(std::uint32_t value, int shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((std::uint32_t{1} << shift) - 1u);
  const std::uint32_t half = std::uint32_t{1} << (shift - 1);
  const bool round_up = rest > half || (rest == half && (kept & 1u) != 0u);
  return kept + (round_up ? 1u : 0u);
}

}  // namespace detail

// ---- f16 (IEEE binary16) ----------------------------------------------------------------------

/// Exact widening. Subnormal f16 values become normal floats (computed as man * 2^-24, an exact
/// float product). NaN keeps its sign and payload and gets the quiet bit set (as IEEE conversion and
/// x86 F16C do), so a signalling f16 NaN becomes a quiet f32 NaN.
ORDO_HD constexpr float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t man = h & 0x3ffu;
  if (exp == 0x1fu) {
    if (man == 0u) return detail::float_of(sign | 0x7f800000u);
    return detail::float_of(sign | 0x7fc00000u | (man << 13));
  }
  if (exp == 0u) {
    // man * 2^-24: man < 2^10, so the product is exact and normal in f32.
    const float magnitude = static_cast<float>(man) * 0x1p-24f;
    return detail::float_of(sign | detail::bits_of(magnitude));
  }
  return detail::float_of(sign | ((exp + 112u) << 23) | (man << 13));
}

/// f16_to_f32 as a function object: the widening a format's dot_scale takes by default (a device
/// reader may pass one with the same bits, ops/qmv/f16_scales.hpp).
struct f16_widening {
  ORDO_HD constexpr float operator()(std::uint16_t h) const { return f16_to_f32(h); }
};

/// RNE. |x| >= 65520 (the midpoint between the largest f16, 65504, and 2^16; the tie goes to the
/// even neighbour, which is infinity) becomes ±inf; infinities stay infinities. Results below 2^-14
/// are f16 subnormals rounded RNE from the exact value (so 2^-25 rounds to ±0, anything above it to
/// the smallest subnormal); the sign of zero results is kept. NaN becomes a quiet f16 NaN with the
/// same sign and the top 9 payload bits.
ORDO_HD constexpr std::uint16_t f32_to_f16(float f) {
  const std::uint32_t x = detail::bits_of(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
  const std::uint32_t exp = abs >> 23;
  if (exp < 113u) {
    // Below 2^-14: the f16 code is the value in units of 2^-24, i.e. mant * 2^(exp-126) rounded.
    // exp == 0 (f32 subnormal) is far below half of 2^-24, so it rounds to zero.
    if (exp < 102u) return static_cast<std::uint16_t>(sign);  // < 2^-25 (2^-25 itself is a tie to 0)
    const std::uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    return static_cast<std::uint16_t>(sign | detail::shift_right_rne(mant, static_cast<int>(126u - exp)));
  }
  // Normal: rebias the exponent and round the 23-bit mantissa to 10 bits. A carry out of the
  // mantissa increments the exponent, which is the correct result (up to 65504 by the guard above).
  const std::uint32_t rebased = ((exp - 112u) << 23) | (abs & 0x7fffffu);
  return static_cast<std::uint16_t>(sign | detail::shift_right_rne(rebased, 13));
}

// ---- bf16 ---------------------------------------------------------------------------------------

/// Exact widening: the 16 bits become the top half of the float. NaNs keep their bits exactly.
ORDO_HD constexpr float bf16_to_f32(std::uint16_t b) {
  return detail::float_of(std::uint32_t{b} << 16);
}

/// RNE on the low 16 bits; finite values past the largest bf16 round to ±inf as IEEE requires.
/// NaN stays NaN: the top 16 bits are kept and the quiet bit is set (so a NaN whose payload sits
/// only in the low half does not turn into infinity).
ORDO_HD constexpr std::uint16_t f32_to_bf16(float f) {
  const std::uint32_t x = detail::bits_of(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x0040u);
  return static_cast<std::uint16_t>(detail::shift_right_rne(x, 16));
}

// ---- E8M0 (the MXFP4 block scale) --------------------------------------------------------------

/// 2^(e-127) with ggml's special cases: e == 0 gives 2^-127 as the f32 subnormal 0x00400000 (a
/// plain `e << 23` would give zero); e == 255 gives +inf (bits 0x7f800000), where the OCP MX spec
/// says NaN. No rounding: every code is exact.
ORDO_HD constexpr float e8m0_to_f32(std::uint8_t e) {
  return detail::float_of(e == 0u ? 0x00400000u : std::uint32_t{e} << 23);
}

/// 2^(e-128): the scale ggml's MXFP4 multiplies its doubled E2M1 values (kvalues_mxfp4, 2·E2M1) by.
/// Mirrors ggml_e8m0_to_fp32_half: e == 0 → 2^-128 (0x00200000), e == 1 → 2^-127 (0x00400000), else
/// bits (e-1) << 23, so e == 255 gives the finite 2^127 (unlike e8m0_to_f32, which gives inf).
ORDO_HD constexpr float e8m0_to_f32_half(std::uint8_t e) {
  return detail::float_of(e < 2u ? (0x00200000u << e) : (std::uint32_t{e} - 1u) << 23);
}

// ---- E4M3 (FN: bias 7, no infinities) ---------------------------------------------------------

/// Exact. exp == 0 codes are subnormal: man * 2^-9; 0x7f and 0xff are NaN (returned as a quiet
/// f32 NaN carrying the code's sign); there is no infinity, so 0x7e = 448 is the largest value.
ORDO_HD constexpr float e4m3_to_f32(std::uint8_t c) {
  const std::uint32_t sign = std::uint32_t{c & 0x80u} << 24;
  const std::uint32_t exp = (c >> 3) & 0xfu;
  const std::uint32_t man = c & 0x7u;
  if (exp == 0xfu && man == 0x7u) return detail::float_of(sign | 0x7fc00000u);
  if (exp == 0u) {
    const float magnitude = static_cast<float>(man) * 0x1p-9f;  // exact: man < 8
    return detail::float_of(sign | detail::bits_of(magnitude));
  }
  return detail::float_of(sign | ((exp + 120u) << 23) | (man << 20));
}

/// RNE, saturating: every |x| above 448 (including ±inf) becomes ±448 (0x7e / 0xfe), like CUDA's
/// satfinite conversion; NaN (either sign) becomes 0x7f. Values below the smallest normal 2^-6 round
/// to subnormal codes in units of 2^-9 (2^-10 is a tie and rounds to ±0); the sign is kept on zero.
ORDO_HD constexpr std::uint8_t f32_to_e4m3(float f) {
  const std::uint32_t x = detail::bits_of(f);
  const std::uint32_t sign = (x >> 24) & 0x80u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return 0x7fu;
  if (abs > 0x43e00000u) return static_cast<std::uint8_t>(sign | 0x7eu);  // > 448
  const std::uint32_t exp = abs >> 23;
  if (exp < 121u) {
    // Below 2^-6: code = value in units of 2^-9 = mant * 2^(exp-141), rounded.
    if (exp < 116u) return static_cast<std::uint8_t>(sign);  // < 2^-11, far below the 2^-10 tie
    const std::uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    return static_cast<std::uint8_t>(sign | detail::shift_right_rne(mant, static_cast<int>(141u - exp)));
  }
  // Normal: rebias and keep 3 mantissa bits. The carry can reach 0x7f (the NaN code) only for
  // values in (448, 464], which the saturation above already caught.
  const std::uint32_t rebased = ((exp - 120u) << 23) | (abs & 0x7fffffu);
  return static_cast<std::uint8_t>(sign | detail::shift_right_rne(rebased, 20));
}

// ---- E2M1 (the MXFP4 nibble) -------------------------------------------------------------------

/// The low 4 bits of `nibble` (upper bits ignored): bit 3 sign, bits 2..1 exponent (bias 1), bit 0
/// mantissa. Magnitudes {0, 0.5, 1, 1.5, 2, 3, 4, 6}; code 8 is -0.0.
ORDO_HD constexpr float e2m1_to_f32(std::uint8_t nibble) {
  const std::uint32_t sign = std::uint32_t{nibble & 0x8u} << 28;
  const std::uint32_t exp = (nibble >> 1) & 0x3u;
  const std::uint32_t man = nibble & 0x1u;
  if (exp == 0u) return detail::float_of(sign | (man != 0u ? 0x3f000000u : 0u));  // ±0 or ±0.5
  return detail::float_of(sign | ((exp + 126u) << 23) | (man << 22));
}

/// RNE to the nearest code, ties to the even code (as values: 0.25 → 0, 0.75 → 1, 1.25 → 1,
/// 1.75 → 2, 2.5 → 2, 3.5 → 4, 5 → 4); |x| > 5 saturates to ±6, including ±inf. The sign bit of the input is
/// kept, so small negatives give -0 (code 8). There is no E2M1 NaN: NaN maps to +0 (code 0).
ORDO_HD constexpr std::uint8_t f32_to_e2m1(float f) {
  const std::uint32_t x = detail::bits_of(f);
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return 0u;
  const std::uint8_t sign = static_cast<std::uint8_t>((x >> 28) & 0x8u);
  const float a = detail::float_of(abs);
  // Midpoints between neighbours; `<=` sends a tie down (the lower code is even), `<` sends it up.
  std::uint8_t code = 7u;
  if (a <= 0.25f) code = 0u;
  else if (a < 0.75f) code = 1u;
  else if (a <= 1.25f) code = 2u;
  else if (a < 1.75f) code = 3u;
  else if (a <= 2.5f) code = 4u;
  else if (a < 3.5f) code = 5u;
  else if (a <= 5.0f) code = 6u;
  return static_cast<std::uint8_t>(sign | code);
}

}  // namespace ordo::numeric
