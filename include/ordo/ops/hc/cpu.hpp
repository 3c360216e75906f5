/// The provisional CPU executor of hc (until the generic executor of DESIGN §3a lands): runs the
/// body lane by lane on the host — lanes 0..31 accumulate, then the Order's butterfly on the 32
/// partials as the warp's shfl_xor does it (rmsnorm::combine_lanes) — then the per-row split and
/// the element-wise writes. Exact and slow: the bit reference of every GPU spec (E2).
#pragma once
#include <array>

#include "ordo/ops/hc/body.hpp"
#include "ordo/ops/hc/hc.hpp"
#include "ordo/ops/rmsnorm/cpu.hpp"

namespace ordo::ops::hc {

/// inv[i] = 1 / rms(flat state of row i), through rmsnorm's phases.
template <int R, class Order>
void inverse_rms_rows(const problem& p, float (&inv)[R]) {
  const rmsnorm::problem flat = flat_view(p);
  std::array<std::array<float, order::lanes>, R> partial{};
  for (int lane = 0; lane < order::lanes; ++lane) {
    float acc[R];
    for (int i = 0; i < R; ++i) acc[i] = 0.0f;
    rmsnorm::accumulate_squares<Order, R>(flat, 0, lane, acc);
    for (int i = 0; i < R; ++i) partial[i][lane] = acc[i];
  }
  for (int i = 0; i < R; ++i) inv[i] = 0.0f;
  for (int i = 0; i < p.rows; ++i) inv[i] = rmsnorm::inverse_rms(rmsnorm::combine_lanes<Order>(partial[i]), flat.head_dim, p.rms_eps);
}

/// mix[i][k] for every live row and k < Mixes.
template <int R, class Order, int Mixes>
void mixes_rows(const problem& p, const float (&inv)[R], float (&mix)[R][Mixes]) {
  for (int k = 0; k < Mixes; ++k) {
    std::array<std::array<float, order::lanes>, R> partial{};
    for (int lane = 0; lane < order::lanes; ++lane) {
      float acc[R];
      for (int i = 0; i < R; ++i) acc[i] = 0.0f;
      accumulate_mix<Order, R>(p, k, lane, inv, acc);
      for (int i = 0; i < R; ++i) partial[i][lane] = acc[i];
    }
    for (int i = 0; i < p.rows; ++i) mix[i][k] = rmsnorm::combine_lanes<Order>(partial[i]);
  }
}

template <int R, class Order, stage S, int Iters = sinkhorn_iters>
void run_cpu(const problem& p) {
  if constexpr (S == stage::post) {
    for (int i = 0; i < p.rows; ++i) write_post(p, i, 0, 1);
  } else {
    constexpr int mixes = mixes_of(S);
    float inv[R];
    inverse_rms_rows<R, Order>(p, inv);
    float mix[R][mixes];
    mixes_rows<R, Order, mixes>(p, inv, mix);
    for (int i = 0; i < p.rows; ++i) {
      float w[n_pre_mix];
      if constexpr (S == stage::pre) {
        float* split = p.split + std::size_t(i) * p.split_stride;
        split_from_mix<Iters>(mix[i], p.scale, p.base, p.hc_eps, split);
        for (int c = 0; c < n_pre_mix; ++c) w[c] = split[c];
      } else {
        head_weights(mix[i], p.scale, p.base, p.hc_eps, w);
      }
      write_collapse(p, i, w, 0, 1);
    }
  }
}

}  // namespace ordo::ops::hc
