/// The provisional CPU executor of attention (until the generic executor of DESIGN §3a lands): the
/// body's chunk walks with a host logit — lanes 0..31's partial dots, then the Order's butterfly
/// exactly as the warp's shfl_xor does it — and every dim's acc_c in one array. The whole schedule
/// walks the chunks of a head in order; the split schedule runs its three phases over all
/// (row, head, chunk) as the GPU grids do, through the workspace. Exact and slow: the bit
/// reference of every GPU spec (E2).
#pragma once
#include <array>
#include <vector>

#include "ordo/ops/attention/attention.hpp"
#include "ordo/ops/attention/body.hpp"
#include "ordo/order/combine.hpp"

namespace ordo::ops::attention {

/// z_j on the host: the 32 lanes' partial dots, the butterfly, ×τ.
template <class Order>
struct host_logit {
  const problem& p;
  float operator()(const float* q, const float* row) const {
    order::host_lanes partial{};
    for (int lane = 0; lane < order::lanes; ++lane) partial.v[lane] = lane_dot<Order>(q, row, p.head_dim, lane);
    return logit(order::combine<typename Order::dot_order>(partial), p.scale);
  }
};

/// acc_c[d] = fmaf(e, row[d], acc_c[d]) for every dim (lane ownership cannot change an element's sum).
inline auto host_accumulate(float* acc, int n) {
  return [acc, n](float e, const float* row) {
    for (int d = 0; d < n; ++d) acc[d] = fmaf(e, row[d], acc[d]);
  };
}

/// The head's max: s_h, then every chunk's max in chunk order.
template <class Order, visibility V>
float head_max(const problem& p, int i, int h) {
  float m = p.sinks[h];
  for (int c = 0; c < row_chunks<Order>(p, i); ++c) m = larger(m, chunk_max<Order, V>(p, i, h, c, host_logit<Order>{p}));
  return m;
}

template <class Order, visibility V>
void run_whole(const problem& p) {
  const int n = p.head_dim;
  std::vector<float> acc(static_cast<std::size_t>(n)), acc_c(static_cast<std::size_t>(n));
  for (int i = 0; i < p.rows; ++i) {
    for (int h = 0; h < p.n_heads; ++h) {
      const float m = head_max<Order, V>(p, i, h);
      float den = weight_of(p.sinks[h], m);
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int c = 0; c < row_chunks<Order>(p, i); ++c) {
        std::fill(acc_c.begin(), acc_c.end(), 0.0f);
        den = den + chunk_sums<Order, V>(p, i, h, c, m, host_logit<Order>{p}, host_accumulate(acc_c.data(), n));
        for (int d = 0; d < n; ++d) acc[std::size_t(d)] = acc[std::size_t(d)] + acc_c[std::size_t(d)];
      }
      float* out = out_head(p, i, h);
      for (int d = 0; d < n; ++d) out[d] = acc[std::size_t(d)] / den;
    }
  }
}

/// The split schedule: phase 1 writes each chunk's max, phase 2 each chunk's den_c and acc_c
/// (with the head's max gathered from phase 1's slots), phase 3 combines them in chunk order.
/// Chunks past a row's own list are neither written nor read.
template <class Order, visibility V>
void run_split(const problem& p) {
  const int n = p.head_dim;
  for (int i = 0; i < p.rows; ++i)
    for (int h = 0; h < p.n_heads; ++h)
      for (int c = 0; c < row_chunks<Order>(p, i); ++c)
        workspace_slot<Order>(p, i, h, c)[0] = chunk_max<Order, V>(p, i, h, c, host_logit<Order>{p});
  for (int i = 0; i < p.rows; ++i)
    for (int h = 0; h < p.n_heads; ++h)
      for (int c = 0; c < row_chunks<Order>(p, i); ++c) {
        float m = p.sinks[h];
        for (int k = 0; k < row_chunks<Order>(p, i); ++k) m = larger(m, workspace_slot<Order>(p, i, h, k)[0]);
        float* slot = workspace_slot<Order>(p, i, h, c);
        std::fill(slot + 2, slot + 2 + n, 0.0f);
        slot[1] = chunk_sums<Order, V>(p, i, h, c, m, host_logit<Order>{p}, host_accumulate(slot + 2, n));
      }
  for (int i = 0; i < p.rows; ++i)
    for (int h = 0; h < p.n_heads; ++h) {
      float m = p.sinks[h];
      for (int k = 0; k < row_chunks<Order>(p, i); ++k) m = larger(m, workspace_slot<Order>(p, i, h, k)[0]);
      float den = weight_of(p.sinks[h], m);
      float* out = out_head(p, i, h);
      for (int d = 0; d < n; ++d) out[d] = 0.0f;
      for (int c = 0; c < row_chunks<Order>(p, i); ++c) {
        const float* slot = workspace_slot<Order>(p, i, h, c);
        den = den + slot[1];
        for (int d = 0; d < n; ++d) out[d] = out[d] + slot[2 + d];
      }
      for (int d = 0; d < n; ++d) out[d] = out[d] / den;
    }
}

template <int R, class Order, visibility V, schedule S>
void run_cpu(const problem& p) {
  if constexpr (S == schedule::whole)
    run_whole<Order, V>(p);
  else
    run_split<Order, V>(p);
}

}  // namespace ordo::ops::attention
