#include "convert/encode_rows.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/quantize_mxfp4.hpp"
#include "ordo/quant/quantize_q8_0.hpp"

namespace ordo::convert {

std::size_t encoded_row_bytes(gguf::ggml_type type, std::int64_t cols) {
  const auto n = static_cast<std::size_t>(cols);
  switch (type) {
    case gguf::ggml_type::f32: return n * 4;
    case gguf::ggml_type::i32: return n * 4;
    case gguf::ggml_type::f16: return n * 2;
    case gguf::ggml_type::bf16: return n * 2;
    case gguf::ggml_type::q8_0: return n / 32 * sizeof(quant::q8_0::block);
    case gguf::ggml_type::mxfp4: return n / 32 * sizeof(quant::mxfp4::block);
    default: break;
  }
  throw std::logic_error(fmt::format("encoded_row_bytes: type {} is not written by the converter",
                                     static_cast<unsigned>(type)));
}

void encode_float_rows(gguf::ggml_type type, const float* x, std::int64_t rows, std::int64_t cols,
                       std::byte* out) {
  const std::int64_t n = rows * cols;
  switch (type) {
    case gguf::ggml_type::f32:
      std::memcpy(out, x, static_cast<std::size_t>(n) * 4);
      return;
    case gguf::ggml_type::f16:
      for (std::int64_t i = 0; i < n; ++i) {
        const std::uint16_t h = numeric::f32_to_f16(x[i]);
        std::memcpy(out + 2 * i, &h, 2);
      }
      return;
    case gguf::ggml_type::bf16:
      for (std::int64_t i = 0; i < n; ++i) {
        const std::uint16_t h = numeric::f32_to_bf16(x[i]);
        std::memcpy(out + 2 * i, &h, 2);
      }
      return;
    case gguf::ggml_type::q8_0: {
      if (cols % 32 != 0) throw std::logic_error("encode_float_rows: q8_0 needs cols % 32 == 0");
      for (std::int64_t b = 0; b < n / 32; ++b) {
        quant::q8_0::block blk;
        quant::quantize_q8_0_block(x + 32 * b, blk);
        std::memcpy(out + b * sizeof(blk), &blk, sizeof(blk));
      }
      return;
    }
    case gguf::ggml_type::mxfp4: {
      if (cols % 32 != 0) throw std::logic_error("encode_float_rows: mxfp4 needs cols % 32 == 0");
      for (std::int64_t b = 0; b < n / 32; ++b) {
        quant::mxfp4::block blk;
        quant::quantize_mxfp4_block(x + 32 * b, blk);
        std::memcpy(out + b * sizeof(blk), &blk, sizeof(blk));
      }
      return;
    }
    default: break;
  }
  throw std::logic_error(fmt::format("encode_float_rows: cannot encode floats as type {}",
                                     static_cast<unsigned>(type)));
}

}  // namespace ordo::convert
