/// The surface every quant format tag offers (DESIGN §3), as concepts so op templates state what
/// they need and a format missing a piece fails at its definition, not deep inside a kernel.
///
/// An activation format quantizes `block_elems` floats into a `block`. A weight format owns its
/// on-disk ggml block (byte-exact, `sizeof(block) == block_bytes`), a dequant bit-identical to
/// ggml's to_float, and a dot: `dot_block(w, x)` is the contribution of `dot_elems` consecutive
/// weights (`dot_elems / block_elems` blocks starting at `w`) against one activation block.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ordo::quant {

template <class A>
concept activation_format = requires(const float* x, typename A::block& out) {
  { A::name } -> std::convertible_to<std::string_view>;
  { A::block_elems } -> std::convertible_to<int>;
  { A::block_bytes } -> std::convertible_to<int>;
  { A::quantize(x, out) };
} && sizeof(typename A::block) == static_cast<std::size_t>(A::block_bytes);

template <class F>
concept quant_format =
    requires(const typename F::block& b, const typename F::block* w, float* out,
             const typename F::activation::block& x) {
      { F::name } -> std::convertible_to<std::string_view>;
      { F::ggml_type } -> std::convertible_to<std::uint32_t>;
      { F::block_elems } -> std::convertible_to<int>;
      { F::block_bytes } -> std::convertible_to<int>;
      { F::dot_elems } -> std::convertible_to<int>;
      { F::dequant(b, out) };
      { F::dot_block(w, x) } -> std::same_as<float>;
    } &&
    activation_format<typename F::activation> &&
    sizeof(typename F::block) == static_cast<std::size_t>(F::block_bytes) &&
    F::dot_elems % F::block_elems == 0 && F::activation::block_elems == F::dot_elems;

/// A weight format whose dot is an exact integer part plus a float tail (DESIGN §3):
///   dot_block(w, x) == dot_scale(*w, x.d, dot_int(*w, x))
/// and dot_int is the sum of dot_int_chunk(w, x, c) over c < int_chunks (32 elements per chunk for
/// the 256-element formats, the whole block for Q8_0/MXFP4). int_sum is additive and exact, so a
/// kernel may split the chunks among lanes, compute them with any instruction (dp4a, sudot4, int8
/// MMA) and combine the integer results in any order before applying dot_scale once.
template <class F>
concept integer_dot_format =
    quant_format<F> && requires(const typename F::block& w, const typename F::activation::block& x,
                                typename F::int_sum s, float x_d) {
      { F::int_chunks } -> std::convertible_to<int>;
      { F::dot_int_chunk(w, x, 0) } -> std::same_as<typename F::int_sum>;
      { F::dot_int(w, x) } -> std::same_as<typename F::int_sum>;
      { s + s } -> std::convertible_to<typename F::int_sum>;
      { F::dot_scale(w, x_d, s) } -> std::same_as<float>;
    };

/// Number of weight blocks one dot_block call reads.
template <quant_format F>
inline constexpr int blocks_per_dot = F::dot_elems / F::block_elems;

}  // namespace ordo::quant
