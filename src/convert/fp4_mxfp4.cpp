#include "convert/fp4_mxfp4.hpp"

#include "ordo/numeric/conversions.hpp"

namespace ordo::convert {

namespace {
// Element k of a sequential-pairs row: byte k/2, low nibble for even k.
inline std::uint8_t fp4_code(const std::uint8_t* packed, std::int64_t k) {
  return static_cast<std::uint8_t>((packed[k >> 1] >> ((k & 1) * 4)) & 0x0fu);
}
}  // namespace

void repack_fp4_row_to_mxfp4(const std::uint8_t* packed, const std::uint8_t* scales, std::int64_t cols,
                             quant::mxfp4::block* out) {
  for (std::int64_t b = 0; b < cols / fp4_block; ++b) {
    const std::uint8_t* src = packed + b * (fp4_block / 2);
    out[b].e = scales[b];
    for (int j = 0; j < 16; ++j)
      out[b].qs[j] = static_cast<std::uint8_t>(fp4_code(src, j) | (fp4_code(src, j + 16) << 4));
  }
}

void dequant_fp4_row(const std::uint8_t* packed, const std::uint8_t* scales, std::int64_t cols, float* out) {
  for (std::int64_t k = 0; k < cols; ++k)
    out[k] = numeric::e2m1_to_f32(fp4_code(packed, k)) * numeric::e8m0_to_f32(scales[k / fp4_block]);
}

}  // namespace ordo::convert
