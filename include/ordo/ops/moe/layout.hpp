/// The expert layouts moe runs: which quant format the routed gate/up, the routed down and the
/// shared expert (gate, up and down alike) use. A layout is one axis of the spec, named after the
/// routed formats: "mxfp4" (MXFP4 routed, Q8_0 shared), "q2" (IQ2_XXS gate/up + Q2_K down, Q8_0
/// shared: the published DS4 GGUFs), "q4_k" (Q4_K routed, Q8_0 shared: the synth small preset),
/// "q8_0" (all Q8_0: synth models) and "f32" (all F32: the synth tiny preset).
#pragma once
#include <cstddef>
#include <string_view>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/moe/problem.hpp"
#include "ordo/quant/formats.hpp"

namespace ordo::ops::moe {

template <class GateUp, class Down, class Shared>
struct layout_of {
  using gate_up = GateUp;  // routed gate and up
  using down = Down;       // routed down
  using shared = Shared;   // shared gate, up and down
};

struct mxfp4_layout : layout_of<quant::mxfp4, quant::mxfp4, quant::q8_0> {
  static constexpr std::string_view name = "mxfp4";
};
struct q2_layout : layout_of<quant::iq2_xxs, quant::q2_k, quant::q8_0> {
  static constexpr std::string_view name = "q2";
};
struct q4_k_layout : layout_of<quant::q4_k, quant::q4_k, quant::q8_0> {
  static constexpr std::string_view name = "q4_k";
};
struct q8_0_layout : layout_of<quant::q8_0, quant::q8_0, quant::q8_0> {
  static constexpr std::string_view name = "q8_0";
};
struct f32_layout : layout_of<quant::f32, quant::f32, quant::f32> {
  static constexpr std::string_view name = "f32";
};

using all_layouts = meta::type_list<f32_layout, q8_0_layout, q4_k_layout, q2_layout, mxfp4_layout>;

/// Bytes of one row of n elements in activation format A (n a multiple of A::block_elems).
template <class A>
constexpr std::size_t act_row_bytes(int n) {
  return std::size_t(n / A::block_elems) * sizeof(typename A::block);
}

/// The smallest mid_act_row_bytes for a layout: one n_ff row in the larger of the routed and the
/// shared down activation.
template <class L>
constexpr std::size_t mid_act_row_bytes(int n_ff) {
  const std::size_t a = act_row_bytes<typename L::down::activation>(n_ff);
  const std::size_t b = act_row_bytes<typename L::shared::activation>(n_ff);
  return a > b ? a : b;
}

/// mid is quantized in chunks that hold whole activation blocks of both down formats.
template <class L>
inline constexpr int mid_chunk = L::down::activation::block_elems > L::shared::activation::block_elems
                                     ? L::down::activation::block_elems
                                     : L::shared::activation::block_elems;

/// Can a spec of layout L and tier R run p? (shape, strides, live rows; the ids are read on the device)
template <class L, int R>
constexpr bool fits(const problem& p) {
  using GU = typename L::gate_up;
  using D = typename L::down;
  using S = typename L::shared;
  if (p.rows < 1 || p.rows > R || p.n_used < 1 || p.n_used > max_used || p.n_used > p.n_expert) return false;
  if (p.n_embd <= 0 || p.n_ff <= 0 || p.n_embd % GU::dot_elems != 0 || p.n_embd % S::dot_elems != 0) return false;
  if (p.n_ff % mid_chunk<L> != 0 || p.n_ff % D::dot_elems != 0 || p.n_ff % S::dot_elems != 0) return false;
  if (p.route_stride < std::size_t(p.n_used) || p.mid_stride < std::size_t(p.n_ff)) return false;
  if (p.out_stride < std::size_t(p.n_embd) || (p.partials && p.partial_stride < std::size_t(p.n_embd))) return false;
  if (p.x_routed_row_bytes < act_row_bytes<typename GU::activation>(p.n_embd)) return false;
  if (p.x_shared_row_bytes < act_row_bytes<typename S::activation>(p.n_embd)) return false;
  if (p.mid_act_row_bytes < mid_act_row_bytes<L>(p.n_ff)) return false;
  const std::size_t gu_row = std::size_t(p.n_embd / GU::block_elems) * GU::block_bytes;
  const std::size_t d_row = std::size_t(p.n_ff / D::block_elems) * D::block_bytes;
  const std::size_t s_in = std::size_t(p.n_embd / S::block_elems) * S::block_bytes;
  const std::size_t s_out = std::size_t(p.n_ff / S::block_elems) * S::block_bytes;
  return p.gate.row_bytes >= gu_row && p.up.row_bytes >= gu_row && p.down.row_bytes >= d_row &&
         p.gate.expert_bytes >= std::size_t(p.n_ff) * p.gate.row_bytes &&
         p.up.expert_bytes >= std::size_t(p.n_ff) * p.up.row_bytes &&
         p.down.expert_bytes >= std::size_t(p.n_embd) * p.down.row_bytes && p.shared_gate.row_bytes >= s_in &&
         p.shared_up.row_bytes >= s_in && p.shared_down.row_bytes >= s_out;
}

}  // namespace ordo::ops::moe
