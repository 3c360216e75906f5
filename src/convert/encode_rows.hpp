/// Encoding float rows into the GGUF tensor types the converter writes: f32 (copy), f16 and bf16
/// (round to nearest even, numeric/conversions.hpp), q8_0 and mxfp4 through the weight quantizers
/// of ordo/quant (byte-identical to ggml's reference quantizers, so a GGUF we write has the bytes
/// llama.cpp's own tools would write for the same floats). MXFP4 from floats is lossy; the FP4
/// experts of the official checkpoint never take this path (fp4_mxfp4.hpp repacks them).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ordo/model/gguf_types.hpp"
#include "ordo/quant/mxfp4.hpp"
#include "ordo/quant/q8_0.hpp"

namespace ordo::convert {

/// Bytes of one row of `cols` elements of `type` (f32, f16, bf16, q8_0, mxfp4, i32).
std::size_t encoded_row_bytes(gguf::ggml_type type, std::int64_t cols);

/// Encodes `rows` × `cols` floats (row-major) as `type` ∈ {f32, f16, bf16, q8_0, mxfp4} into
/// `out` (rows · encoded_row_bytes bytes). q8_0 and mxfp4 need cols % 32 == 0 (the caller checks
/// and names the tensor).
void encode_float_rows(gguf::ggml_type type, const float* x, std::int64_t rows, std::int64_t cols,
                       std::byte* out);

}  // namespace ordo::convert
