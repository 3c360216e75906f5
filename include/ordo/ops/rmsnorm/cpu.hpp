/// The provisional CPU executor of rmsnorm (until the generic executor of DESIGN §3a lands): runs
/// the body lane by lane on the host — lanes 0..31 accumulate, then the Order's butterfly on the
/// 32 partials exactly as the warp's shfl_xor does it — then the write phases. Exact and slow: the
/// bit reference of every GPU spec (E2).
#pragma once
#include <array>

#include "ordo/ops/rmsnorm/body.hpp"
#include "ordo/ops/rmsnorm/rmsnorm.hpp"

namespace ordo::ops::rmsnorm {

/// The device combine on the host: every lane adds the value of lane ^ offset, offsets in order.
template <class Order>
float combine_lanes(std::array<float, order::lanes> v) {
  for (int step = 0; step < Order::combine_steps; ++step) {
    const int offset = Order::combine_offset(step);
    std::array<float, order::lanes> next{};
    for (int lane = 0; lane < order::lanes; ++lane) next[lane] = v[lane] + v[lane ^ offset];
    v = next;
  }
  return v[0];
}

template <int R, class Order, weighting W, epilogue E>
void run_cpu(const problem& p) {
  for (int h = 0; h < p.n_heads; ++h) {
    std::array<std::array<float, order::lanes>, R> partial{};
    for (int lane = 0; lane < order::lanes; ++lane) {
      float acc[R];
      for (int i = 0; i < R; ++i) acc[i] = 0.0f;
      accumulate_squares<Order, R>(p, h, lane, acc);
      for (int i = 0; i < R; ++i) partial[i][lane] = acc[i];
    }
    for (int i = 0; i < p.rows; ++i) {
      const float inv = inverse_rms(combine_lanes<Order>(partial[i]), p.head_dim, p.eps);
      for (int lane = 0; lane < order::lanes; ++lane) write_head<W>(p, i, h, lane, inv);
      if constexpr (E == epilogue::q8_32)
        for (int lane = 0; lane < order::lanes; ++lane) write_q8_head(p, i, h, lane);
    }
  }
}

}  // namespace ordo::ops::rmsnorm
