/// quantize_rows: float rows → activation blocks of format A (problem.hpp), the producer of qmv's
/// activations. Op descriptor: one axis, the activation format.
#pragma once
#include <string_view>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/quantize_rows/kernel.hpp"
#include "ordo/quant/act_f32.hpp"
#include "ordo/quant/formats.hpp"
#include "ordo/quant/q8_32.hpp"
#include "ordo/quant/q8_k.hpp"

namespace ordo::ops::quantize_rows {

struct op {
  static constexpr std::string_view name = "quantize_rows";
  using problem = quantize_rows::problem;

  /// The activation formats the qmv formats need (each once).
  template <class Preset>
  using axes = meta::type_list<meta::type_list<quant::act_f32, quant::q8_32, quant::q8_k>>;

  template <class A>
  static constexpr bool valid = true;

  template <class Preset, class A>
  using kernel = quantize_rows::kernel<A, typename Preset::quantize_rows::policy>;

  struct info {
    std::string_view activation;
    int block_elems;  // floats per activation block
    int block_bytes;  // bytes per activation block: a row of k floats takes k / block_elems * block_bytes
  };
  template <class A>
  static constexpr info describe() {
    return {A::name, A::block_elems, A::block_bytes};
  }
};

}  // namespace ordo::ops::quantize_rows
