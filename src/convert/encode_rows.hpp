/// Encoding float rows into the GGUF tensor types the converter writes: f32 (copy), f16 and bf16
/// (round to nearest even, numeric/conversions.hpp) and q8_0. The q8_0 weight quantizer is ggml's
/// reference rule (quantize_row_q8_0_ref): d = amax/127 rounded to f16 for storage, q = round-half-
/// away(x · (1/d)) computed with the unrounded d, all-zero blocks get d = 0 — so a GGUF we write
/// has the bytes llama.cpp's own quantizer would write for the same floats.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ordo/model/gguf_types.hpp"
#include "ordo/quant/mxfp4.hpp"
#include "ordo/quant/q8_0.hpp"

namespace ordo::convert {

/// Bytes of one row of `cols` elements of `type` (f32, f16, bf16, q8_0, mxfp4, i32).
std::size_t encoded_row_bytes(gguf::ggml_type type, std::int64_t cols);

/// Encodes `rows` × `cols` floats (row-major) as `type` ∈ {f32, f16, bf16, q8_0} into `out`
/// (rows · encoded_row_bytes bytes). q8_0 needs cols % 32 == 0 (the caller checks and names the
/// tensor).
void encode_float_rows(gguf::ggml_type type, const float* x, std::int64_t rows, std::int64_t cols,
                       std::byte* out);

/// ggml's reference q8_0 quantization of one 32-element block.
quant::q8_0::block quantize_q8_0_block(const float* x);

}  // namespace ordo::convert
