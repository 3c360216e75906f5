/// Host replay of qmv for P2: each block's term by F::dot_block on the activation blocks, then
/// order::replay of the Order from its written definition (order/replay.hpp). It shares no lane,
/// window or combine code with the kernel.
#pragma once
#include <cstddef>
#include <vector>

#include "ordo/ops/qmv/problem.hpp"
#include "ordo/order/replay.hpp"

namespace ordo::ops::qmv {

/// out[r] for r < n_out of one activation row `act` (nb activation blocks).
template <quant::quant_format F, class Order>
std::vector<float> replay_row(const std::byte* weights, std::size_t weight_row_bytes, int n_out,
                              const typename F::activation::block* act, int nb) {
  std::vector<float> out(std::size_t(n_out > 0 ? n_out : 0));
  std::vector<float> terms(std::size_t(nb > 0 ? nb : 0));
  for (int r = 0; r < n_out; ++r) {
    const auto* row = reinterpret_cast<const typename F::block*>(weights + std::size_t(r) * weight_row_bytes);
    for (int b = 0; b < nb; ++b) terms[std::size_t(b)] = F::dot_block(row + std::size_t(b) * quant::blocks_per_dot<F>, act[b]);
    out[std::size_t(r)] = order::replay<Order>(terms.data(), nb);
  }
  return out;
}

}  // namespace ordo::ops::qmv
