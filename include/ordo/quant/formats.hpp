/// Every weight format, in one include, plus a runtime table of their block geometry for code that
/// meets formats as ggml type ids (GGUF reading, converters, inspect). Hana-free so ops can include
/// it; the Hana tuple for the registry is in format_list.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "ordo/meta/type_list.hpp"
#include "ordo/quant/bf16.hpp"
#include "ordo/quant/concepts.hpp"
#include "ordo/quant/f16.hpp"
#include "ordo/quant/f32.hpp"
#include "ordo/quant/iq2_xxs.hpp"
#include "ordo/quant/mxfp4.hpp"
#include "ordo/quant/q2_k.hpp"
#include "ordo/quant/q4_k.hpp"
#include "ordo/quant/q8_0.hpp"

namespace ordo::quant {

/// The weight formats in a fixed order (float formats first, then by ggml id).
using all_formats = meta::type_list<f32, f16, bf16, q8_0, q2_k, q4_k, iq2_xxs, mxfp4>;

/// Block geometry of one format, for lookups by ggml type id or name.
struct format_info {
  std::string_view name;
  std::uint32_t ggml_type;
  std::uint32_t block_elems;
  std::uint32_t block_bytes;
};

namespace detail {
template <quant_format... Fs>
constexpr std::array<format_info, sizeof...(Fs)> make_format_table(meta::type_list<Fs...>) {
  return {format_info{Fs::name, Fs::ggml_type, static_cast<std::uint32_t>(Fs::block_elems),
                      static_cast<std::uint32_t>(Fs::block_bytes)}...};
}
}  // namespace detail

inline constexpr auto format_table = detail::make_format_table(all_formats{});

/// The format with this ggml type id, or nullptr if ordo does not support it.
constexpr const format_info* find_format(std::uint32_t ggml_type) {
  for (const auto& f : format_table)
    if (f.ggml_type == ggml_type) return &f;
  return nullptr;
}

/// The format with this name ("q8_0", ...), or nullptr.
constexpr const format_info* find_format(std::string_view name) {
  for (const auto& f : format_table)
    if (f.name == name) return &f;
  return nullptr;
}

/// Bytes of a row of `elems` elements, or 0 if `elems` is not a whole number of blocks.
constexpr std::uint64_t row_bytes(const format_info& f, std::uint64_t elems) {
  return elems % f.block_elems == 0 ? elems / f.block_elems * f.block_bytes : 0;
}

}  // namespace ordo::quant
