/// attention, the op descriptor: name, axes and validity. Axes, in spec order: tier R (query rows
/// per launch), Order (the q·k lane split and the history's chunking), visibility, schedule.
///
/// The Order fixes every float operation of a head: q·k as ls32 (lane l owns dims l, l+32, …,
/// fmaf from +0, xor butterfly 16…1), then ×τ; the history split into chunks of `chunk` list
/// positions (chunk c = entries [c·chunk, (c+1)·chunk)); m = the max of s_h and every chunk's max
/// (exact in any grouping); per chunk, den_c and acc_c[d] summed over its visible entries in list
/// order from +0 (acc_c by fmaf with e_j = e^(z_j − m)); then den = e^(s_h − m) + den_0 + den_1 + …
/// and acc[d] = +0 + acc_0[d] + acc_1[d] + … in chunk order; out = acc / den. The chunk size is
/// part of the Order — never a function of the row count, the history length or the device
/// (DESIGN §3a) — so the split schedule (chunks in parallel) is the whole one's arithmetic.
#pragma once
#include <string_view>
#include <utility>

#include "ordo/ops/attention/problem.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::attention {

/// An attention Order: q·k by order::lane_strided, the history in chunks of Chunk list entries.
template <int Chunk>
struct kv_chunked {
  static_assert(Chunk >= 1);
  static constexpr int chunk = Chunk;
  using dot_order = order::lane_strided;
  static constexpr std::string_view name = Chunk == 64 ? "kv64" : Chunk == 32 ? "kv32" : "kv?";
};

struct op {
  static constexpr std::string_view name = "attention";
  /// Decode (1), verify (2–6), prefill chunks (8, 16): the tiers the steps use.
  using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
  /// kv64 is the shipped order (a DS4 history of 128 raw + 512 selected rows is 10 chunks);
  /// kv32 exists for P5 non-vacuity (another chunking gives other bits).
  template <class Fn>
  static constexpr void for_each_order(Fn&& fn) {
    fn.template operator()<kv_chunked<64>>();
    fn.template operator()<kv_chunked<32>>();
  }

  /// Calls fn.template operator()<R, Order, V, S>() for every spec, in one fixed order (order,
  /// tier, visibility, schedule): the CPU entry list and kernels/attention.cpp both walk it.
  template <class Fn>
  static constexpr void for_each_spec(Fn&& fn) {
    for_each_order([&]<class Order>() {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((fn.template operator()<tiers::values[I], Order, visibility::general, schedule::whole>(),
          fn.template operator()<tiers::values[I], Order, visibility::general, schedule::split>(),
          fn.template operator()<tiers::values[I], Order, visibility::direct, schedule::whole>(),
          fn.template operator()<tiers::values[I], Order, visibility::direct, schedule::split>()),
         ...);
      }(std::make_index_sequence<tiers::values.size()>{});
    });
  }
};

/// Chunks of a list of n entries under Order.
template <class Order>
constexpr int chunks_of(int n) {
  return (n + Order::chunk - 1) / Order::chunk;
}

/// The split schedule's workspace: per (row, head, chunk) the chunk max, den_c and acc_c[head_dim].
template <class Order>
constexpr std::size_t workspace_floats(const problem& p) {
  return std::size_t(p.rows) * std::size_t(p.n_heads) * std::size_t(chunks_of<Order>(p.max_listed)) *
         (2 + std::size_t(p.head_dim));
}

/// Whether a problem fits spec (R, S): rows within the tier, heads the lanes can hold, strides.
template <int R, schedule S>
constexpr bool valid(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_heads < 1 || p.head_dim < 1 || p.head_dim > max_head_dim) return false;
  const std::size_t width = std::size_t(p.n_heads) * std::size_t(p.head_dim);
  if (p.q_stride < width || p.out_stride < width || p.kv_stride < std::size_t(p.head_dim)) return false;
  if (p.max_listed < 0 || p.gather_stride < std::size_t(p.max_listed)) return false;
  if constexpr (S == schedule::split) return p.workspace != nullptr;
  return true;
}

}  // namespace ordo::ops::attention
