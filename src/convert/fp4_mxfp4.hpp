/// The routed experts of the official DeepSeek V4 checkpoint are FP4: dtype I8 [out, in/2] with
/// two E2M1 codes per byte in sequential pairs (low nibble = element 2j, high nibble = 2j+1) and
/// an E8M0 scale per 32 elements [out, in/32]; the value is E2M1(code) · 2^(e−127)
/// (ds4-model §8.5). ggml's MXFP4 block {u8 e; u8 qs[16]} stores the same 32 values split-half
/// (qs[j] low nibble = element j, high = element j+16) and computes doubled E2M1 × 2^(e−128),
/// which is the same number: so repacking moves nibbles and copies the scale byte, and is exactly
/// lossless (tests/unit/convert proves it element by element for every code and scale).
#pragma once

#include <cstdint>

#include "ordo/quant/mxfp4.hpp"

namespace ordo::convert {

inline constexpr std::int64_t fp4_block = 32;

/// One row of `cols` values (cols % 32 == 0): `packed` has cols/2 bytes, `scales` cols/32 bytes,
/// `out` receives cols/32 blocks.
void repack_fp4_row_to_mxfp4(const std::uint8_t* packed, const std::uint8_t* scales, std::int64_t cols,
                             quant::mxfp4::block* out);

/// The source's own decoding of the same row: E2M1(code) · e8m0_to_f32(scale).
void dequant_fp4_row(const std::uint8_t* packed, const std::uint8_t* scales, std::int64_t cols, float* out);

}  // namespace ordo::convert
