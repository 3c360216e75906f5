#include "convert/encode_rows.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/quantize_mxfp4.hpp"
#include "ordo/quant/quantize_q8_0.hpp"
#include "ordo/quant/visit_format.hpp"

namespace ordo::convert {

namespace {

// One block of floats in each format the converter writes; a format without an overload here is
// not written from floats (the K-quants and IQ2_XXS would need ggml's importance-weighted search).
void encode_block(quant::f32, const float* x, quant::f32::block& b) { std::memcpy(&b.v, x, 4); }
void encode_block(quant::f16, const float* x, quant::f16::block& b) { b.bits = numeric::f32_to_f16(*x); }
void encode_block(quant::bf16, const float* x, quant::bf16::block& b) { b.bits = numeric::f32_to_bf16(*x); }
void encode_block(quant::q8_0, const float* x, quant::q8_0::block& b) { quant::quantize_q8_0_block(x, b); }
void encode_block(quant::mxfp4, const float* x, quant::mxfp4::block& b) { quant::quantize_mxfp4_block(x, b); }

template <class F>
concept written_format = requires(const float* x, typename F::block& b) { encode_block(F{}, x, b); };

}  // namespace

std::size_t encoded_row_bytes(gguf::ggml_type type, std::int64_t cols) {
  const auto n = static_cast<std::size_t>(cols);
  if (type == gguf::ggml_type::i32) return n * 4;  // token→expert tables, copied, never from floats
  return quant::visit_format(
      type,
      [&]<class F>(F) -> std::size_t {
        if constexpr (written_format<F>)
          return n / F::block_elems * F::block_bytes;
        else
          throw std::logic_error(fmt::format("encoded_row_bytes: {} is not written by the converter", F::name));
      },
      "encoded_row_bytes");
}

void encode_float_rows(gguf::ggml_type type, const float* x, std::int64_t rows, std::int64_t cols,
                       std::byte* out) {
  quant::visit_format(
      type,
      [&]<class F>(F) {
        if constexpr (written_format<F>) {
          if (cols % F::block_elems != 0)
            throw std::logic_error(fmt::format("encode_float_rows: {} needs cols % {} == 0", F::name, F::block_elems));
          const std::int64_t blocks = rows * cols / F::block_elems;
          for (std::int64_t b = 0; b < blocks; ++b) {
            typename F::block blk;
            encode_block(F{}, x + b * F::block_elems, blk);
            std::memcpy(out + b * F::block_bytes, &blk, F::block_bytes);
          }
        } else {
          throw std::logic_error(fmt::format("encode_float_rows: cannot encode floats as {}", F::name));
        }
      },
      "encode_float_rows");
}

}  // namespace ordo::convert
