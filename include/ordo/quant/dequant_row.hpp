/// Host-side dequantization of a whole row whose format is known only at run time as a ggml type
/// id (GGUF tensors, converters, the double-precision reference). Dispatches to the format tag's
/// dequant, so the bits are those of the kernels and of ggml's to_float.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "ordo/quant/visit_format.hpp"

namespace ordo::quant {

/// Dequantizes `n` elements of ggml type `ggml_type` from `src` (n / block_elems packed blocks,
/// at any byte alignment: GGUF tensor offsets need not be block-aligned) into `dst`. Throws
/// std::invalid_argument naming the type if it is not an ordo format (unsupported_format) or if
/// `n` is not a whole number of blocks.
inline void dequant_row(std::uint32_t ggml_type, const void* src, float* dst, std::size_t n) {
  visit_format(
      ggml_type,
      [&]<quant_format F>(F) {
        if (n % F::block_elems != 0)
          throw std::invalid_argument("dequant_row: " + std::string(F::name) + " row of " + std::to_string(n) +
                                      " elements is not a multiple of its block size " +
                                      std::to_string(F::block_elems));
        const auto* bytes = static_cast<const unsigned char*>(src);
        for (std::size_t b = 0; b < n / F::block_elems; ++b) {
          typename F::block blk;
          std::memcpy(&blk, bytes + b * sizeof blk, sizeof blk);
          F::dequant(blk, dst + b * F::block_elems);
        }
      },
      "dequant_row");
}

}  // namespace ordo::quant
