/// The provisional CPU executor of indexer (until the generic executor of DESIGN §3a lands): the
/// prepare phase per head, every visible key's score with the host dot (lanes 0..31's partials,
/// then the Order's butterfly as the warp's shfl_xor does it), then the selection (select_cpu.hpp).
#pragma once
#include <algorithm>
#include <array>

#include "ordo/ops/indexer/body.hpp"
#include "ordo/ops/indexer/indexer.hpp"
#include "ordo/ops/indexer/select_cpu.hpp"
#include "ordo/order/combine.hpp"

namespace ordo::ops::indexer {

template <class Order, selector S>
void run_rows(const problem& p) {
  const auto dot = [&p](const float* q, const float* key) {
    order::host_lanes partial{};
    for (int lane = 0; lane < order::lanes; ++lane) partial.v[lane] = lane_dot<Order>(q, key, p.head_dim, lane);
    return order::combine<typename Order::dot_order>(partial);
  };
  for (int i = 0; i < p.rows; ++i) {
    for (int h = 0; h < p.n_heads; ++h) prepare_head(p, i, h);
    float* scores = p.scores + std::size_t(i) * p.score_stride;
    const int n = p.n_visible[i];
    for (int c = 0; c < n; ++c) scores[c] = key_score(p, i, c, dot);
    const auto chosen = S == selector::flat ? select_flat(scores, n, p.top_k)
                                            : select_hierarchical(scores, n, p.top_k, hierarchical_block);
    std::copy(chosen.begin(), chosen.end(), p.selected + std::size_t(i) * p.sel_stride);
    p.n_selected[i] = std::int32_t(chosen.size());
  }
}

template <int R, class Order, selector S>
void run_cpu(const problem& p) {
  run_rows<Order, S>(p);
}

}  // namespace ordo::ops::indexer
