/// Host-side dequantization of a whole row whose format is known only at run time as a ggml type
/// id (GGUF tensors, converters, the double-precision reference). Dispatches to the format tag's
/// dequant, so the bits are those of the kernels and of ggml's to_float.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ordo/quant/formats.hpp"

namespace ordo::quant {

namespace detail {
template <quant_format F>
void dequant_blocks(const void* src, float* dst, std::size_t n) {
  const auto* blocks = static_cast<const typename F::block*>(src);
  for (std::size_t b = 0; b < n / F::block_elems; ++b) F::dequant(blocks[b], dst + b * F::block_elems);
}
template <quant_format... Fs>
bool dequant_dispatch(meta::type_list<Fs...>, std::uint32_t ggml_type, const void* src, float* dst, std::size_t n) {
  return ((Fs::ggml_type == ggml_type ? (dequant_blocks<Fs>(src, dst, n), true) : false) || ...);
}
}  // namespace detail

/// Dequantizes `n` elements of ggml type `ggml_type` from `src` (n / block_elems packed blocks;
/// unaligned is fine for the byte-aligned formats, 2-byte alignment for the f16-scaled ones) into
/// `dst`. Throws std::invalid_argument naming the type if it is not an ordo format or if `n` is
/// not a whole number of blocks.
inline void dequant_row(std::uint32_t ggml_type, const void* src, float* dst, std::size_t n) {
  const format_info* f = find_format(ggml_type);
  if (f == nullptr)
    throw std::invalid_argument("dequant_row: ggml type " + std::to_string(ggml_type) + " is not a supported format");
  if (n % f->block_elems != 0)
    throw std::invalid_argument("dequant_row: " + std::string(f->name) + " row of " + std::to_string(n) +
                                " elements is not a multiple of its block size " + std::to_string(f->block_elems));
  detail::dequant_dispatch(all_formats{}, ggml_type, src, dst, n);
}

}  // namespace ordo::quant
