#include "convert/fp8_blocks.hpp"

#include "ordo/numeric/conversions.hpp"

namespace ordo::convert {

float fp8_e4m3_value(std::uint8_t code) {
  if ((code & 0x7fu) == 0x7fu) return 0.0f;
  return numeric::e4m3_to_f32(code);
}

void dequant_fp8_rows(std::span<const std::uint8_t> codes, std::int64_t first_row, std::int64_t rows,
                      std::int64_t cols, std::span<const float> scales, std::int64_t scale_cols,
                      float* out) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* srow = scales.data() + ((first_row + r) / fp8_block) * scale_cols;
    const std::uint8_t* crow = codes.data() + r * cols;
    float* orow = out + r * cols;
    for (std::int64_t c = 0; c < cols; ++c) orow[c] = fp8_e4m3_value(crow[c]) * srow[c / fp8_block];
  }
}

}  // namespace ordo::convert
