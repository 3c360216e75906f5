/// The provisional CPU executor of compressor (until the generic executor of DESIGN §3a lands):
/// store row by row; emit phase by phase, lanes 0..31 in turn, the norm's 32 partials combined by
/// order::combine<Order> exactly as the warp's butterfly does. The bit reference of every GPU spec.
#pragma once
#include <array>

#include "ordo/ops/compressor/body.hpp"
#include "ordo/ops/compressor/compressor.hpp"
#include "ordo/ops/rmsnorm/body.hpp"
#include "ordo/order/combine.hpp"

namespace ordo::ops::compressor {

template <int R, ratio Ra>
void run_store_cpu(const store_problem& p) {
  for (int i = 0; i < p.rows; ++i) write_store_row<Ra>(p, i, 0, 1);
}

template <ratio Ra, class Order, emitted E = emitted::attention>
void run_emit_cpu(const emit_problem& p) {
  for (int lane = 0; lane < order::lanes; ++lane) pool_lane<Ra>(p, lane);
  const rmsnorm::problem norm = norm_view(p);
  order::host_lanes partial{};
  for (int lane = 0; lane < order::lanes; ++lane) {
    float acc[1] = {0.0f};
    rmsnorm::accumulate_squares<Order, 1>(norm, 0, lane, acc);
    partial.v[lane] = acc[0];
  }
  const float inv = rmsnorm::inverse_rms(order::combine<Order>(partial), p.d, p.eps);
  for (int lane = 0; lane < order::lanes; ++lane) rmsnorm::write_head<rmsnorm::weighting::weighted>(norm, 0, 0, lane, inv);
  for (int lane = 0; lane < order::lanes; ++lane) rope_lane(p, lane);
  for (int lane = 0; lane < order::lanes; ++lane) finish_lane<E>(p, lane);
}

}  // namespace ordo::ops::compressor
