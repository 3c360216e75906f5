/// The CPU executor of qmv: runs the kernel's per-lane body (accumulate_window) for lanes 0..31
/// one after another on the host, then the Order's combine tree on the 32 partial sums. Slow and
/// exact: it is the bit reference every GPU spec is compared with (E2).
#pragma once
#include <algorithm>
#include <array>
#include <thread>
#include <vector>

#include "ordo/ops/qmv/qmv.hpp"

namespace ordo::ops::qmv {

template <quant::quant_format F, class Order, int R>
void run_cpu_rows(const problem& p, int row_begin, int row_end) {
  const int nb = p.k / F::dot_elems;
  for (int r = row_begin; r < row_end; ++r) {
    const std::byte* row = p.weights + std::size_t(r) * p.weight_row_bytes;
    std::array<std::array<float, order::lanes>, R> partial{};
    for (int lane = 0; lane < order::lanes; ++lane) {
      float acc[R];
      for (int i = 0; i < R; ++i) acc[i] = 0.0f;
      accumulate_window<F, Order, R>(row, 0, nb, nb, lane, p, acc);
      for (int i = 0; i < R; ++i) partial[i][lane] = acc[i];
    }
    for (int i = 0; i < p.rows; ++i) {
      auto v = partial[i];
      // The device combine: every lane adds the value of lane ^ offset (shfl_xor), offsets in order.
      for (int step = 0; step < Order::combine_steps; ++step) {
        const int offset = Order::combine_offset(step);
        std::array<float, order::lanes> next{};
        for (int lane = 0; lane < order::lanes; ++lane) next[lane] = v[lane] + v[lane ^ offset];
        v = next;
      }
      p.out[std::size_t(i) * p.out_stride + r] = v[0];
    }
  }
}

/// Runs the whole problem, split over host threads by weight rows (rows are independent).
template <quant::quant_format F, class Order, int R>
void run_cpu(const problem& p) {
  const int threads = int(std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()),
                                             unsigned(std::max(1, p.n_out / 64))));
  if (threads <= 1) return run_cpu_rows<F, Order, R>(p, 0, p.n_out);
  std::vector<std::thread> pool;
  const int per = (p.n_out + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const int a = t * per, b = std::min(p.n_out, a + per);
    if (a < b) pool.emplace_back([&p, a, b] { run_cpu_rows<F, Order, R>(p, a, b); });
  }
  for (auto& t : pool) t.join();
}

}  // namespace ordo::ops::qmv
