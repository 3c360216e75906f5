/// Host replay of moe for P2, one row alone and written from the definition (problem.hpp), not
/// from body.hpp: no units, no passes. Each slot's gate and up come from qmv's replay
/// (qmv::replay_row: the block terms and the Order's written definition) on the expert's slice,
/// mid = silu(min(g, c)) · clamp(u, ±c) · w as the reference writes it, mid quantized by the
/// activation format's own quantize, the down projection again by qmv's replay, and the sum over
/// the slots in output order with the shared expert last.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ordo/numeric/math.hpp"
#include "ordo/ops/moe/layout.hpp"
#include "ordo/ops/qmv/replay.hpp"
#include "ordo/ops/quantize_rows/replay.hpp"

namespace ordo::ops::moe::replay {

/// One row's gate_up results: mid per slot [n_used + 1][n_ff], mid quantized per slot (the
/// bytes of the slot's down activation row), and the probes: g and u per slot before the clamp.
struct gate_up_result {
  std::vector<std::vector<float>> mid;
  std::vector<std::vector<std::byte>> mid_act;
  std::vector<std::vector<float>> gate, up;
};

/// The reference's clamped SwiGLU times the weight, in float.
inline float swiglu(float g, float u, float w, float c) {
  if (c > 0) {
    g = std::min(g, c);
    u = std::clamp(u, -c, c);
  }
  return numeric::silu_f32(g) * u * w;
}

template <class A>
std::vector<std::byte> act_bytes(const std::vector<float>& x) {
  const auto blocks = quantize_rows::replay_row<A>(x.data(), int(x.size()));
  std::vector<std::byte> b(blocks.size() * sizeof(typename A::block));
  std::memcpy(b.data(), blocks.data(), b.size());
  return b;
}

/// mid per slot quantized to the slot's down activation (the shared expert's for the last slot).
template <class L>
std::vector<std::vector<std::byte>> quantize_mid(const problem& p, const std::vector<std::vector<float>>& mid) {
  std::vector<std::vector<std::byte>> out;
  for (int k = 0; k <= p.n_used; ++k)
    out.push_back(k == p.n_used ? act_bytes<typename L::shared::activation>(mid[std::size_t(k)])
                                : act_bytes<typename L::down::activation>(mid[std::size_t(k)]));
  return out;
}

/// Row `i` of problem p alone: its gate_up phase (p's weights, ids, weights and x).
template <class L, class Order>
gate_up_result gate_up_row(const problem& p, int i) {
  using GU = typename L::gate_up;
  using S = typename L::shared;
  gate_up_result r;
  for (int k = 0; k <= p.n_used; ++k) {
    const bool shared = k == p.n_used;
    std::vector<float> g, u;
    float w = 1.0f;
    if (shared) {
      const auto* x = reinterpret_cast<const typename S::activation::block*>(p.x_shared + std::size_t(i) * p.x_shared_row_bytes);
      g = qmv::replay_row<S, Order>(p.shared_gate.data, p.shared_gate.row_bytes, p.n_ff, x, p.n_embd / S::dot_elems);
      u = qmv::replay_row<S, Order>(p.shared_up.data, p.shared_up.row_bytes, p.n_ff, x, p.n_embd / S::dot_elems);
    } else {
      const int e = p.expert_ids[std::size_t(i) * p.route_stride + std::size_t(k)];
      w = p.expert_weights[std::size_t(i) * p.route_stride + std::size_t(k)];
      const auto* x = reinterpret_cast<const typename GU::activation::block*>(p.x_routed + std::size_t(i) * p.x_routed_row_bytes);
      g = qmv::replay_row<GU, Order>(p.gate.data + std::size_t(e) * p.gate.expert_bytes, p.gate.row_bytes, p.n_ff, x,
                                     p.n_embd / GU::dot_elems);
      u = qmv::replay_row<GU, Order>(p.up.data + std::size_t(e) * p.up.expert_bytes, p.up.row_bytes, p.n_ff, x,
                                     p.n_embd / GU::dot_elems);
    }
    std::vector<float> mid(std::size_t(p.n_ff));
    for (int j = 0; j < p.n_ff; ++j) mid[std::size_t(j)] = swiglu(g[std::size_t(j)], u[std::size_t(j)], w, p.clamp);
    r.mid.push_back(std::move(mid));
    r.gate.push_back(std::move(g));
    r.up.push_back(std::move(u));
  }
  r.mid_act = quantize_mid<L>(p, r.mid);
  return r;
}

/// Row `i`'s down phase from its quantized mid per slot: each slot's projection, then the sum
/// over the slots in output order, the shared expert last.
template <class L, class Order>
std::vector<float> down_row(const problem& p, int i, const std::vector<std::vector<std::byte>>& mid_act) {
  using D = typename L::down;
  using S = typename L::shared;
  std::vector<std::vector<float>> part;
  for (int k = 0; k <= p.n_used; ++k) {
    if (k == p.n_used) {
      const auto* m = reinterpret_cast<const typename S::activation::block*>(mid_act[std::size_t(k)].data());
      part.push_back(qmv::replay_row<S, Order>(p.shared_down.data, p.shared_down.row_bytes, p.n_embd, m, p.n_ff / S::dot_elems));
    } else {
      const int e = p.expert_ids[std::size_t(i) * p.route_stride + std::size_t(k)];
      const auto* m = reinterpret_cast<const typename D::activation::block*>(mid_act[std::size_t(k)].data());
      part.push_back(qmv::replay_row<D, Order>(p.down.data + std::size_t(e) * p.down.expert_bytes, p.down.row_bytes, p.n_embd,
                                               m, p.n_ff / D::dot_elems));
    }
  }
  std::vector<float> out(std::size_t(p.n_embd));
  for (int o = 0; o < p.n_embd; ++o) {
    float routed = part[0][std::size_t(o)];
    for (int k = 1; k < p.n_used; ++k) routed += part[std::size_t(k)][std::size_t(o)];
    out[std::size_t(o)] = routed + part[std::size_t(p.n_used)][std::size_t(o)];
  }
  return out;
}

}  // namespace ordo::ops::moe::replay
