/// FP8 E4M3 weights with 128×128 block scales (the official DeepSeek V4 dense layout,
/// ds4-model §8.5): `W[r, c] = e4m3(codes[r, c]) · scale[r / 128, c / 128]`, one IEEE multiply
/// per element. The scale tensor is E8M0 (`F8_E8M0`/`U8`) upstream; F32 scales (DeepSeek V3 style
/// `weight_scale_inv`) are accepted too. E4M3 NaN codes (0x7f, 0xff) decode to 0 as in ds4's
/// quantizer, so a stray NaN never poisons a whole matrix product downstream.
#pragma once

#include <cstdint>
#include <span>

namespace ordo::convert {

inline constexpr std::int64_t fp8_block = 128;

/// Decodes `rows` rows of `cols` E4M3 codes that start at row `first_row` of the weight.
/// `scales` is the whole decoded scale matrix, row-major [ceil(out/128), scale_cols] with
/// scale_cols = ceil(cols/128). `out` receives rows·cols floats.
void dequant_fp8_rows(std::span<const std::uint8_t> codes, std::int64_t first_row, std::int64_t rows,
                      std::int64_t cols, std::span<const float> scales, std::int64_t scale_cols,
                      float* out);

/// One E4M3 code as ds4 decodes it (NaN → 0, everything else exact).
float fp8_e4m3_value(std::uint8_t code);

}  // namespace ordo::convert
