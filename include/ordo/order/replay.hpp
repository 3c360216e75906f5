/// Host replay of a reduction order, from a second, independent statement of the order: which
/// lane owns block b (`lane_of`, the inverse of the kernels' lane ranges) and the xor offsets of
/// its combine tree, evaluated as a tree for lane 0 (not as the step loop order::combine runs).
/// Nothing here calls Order::range or order::combine, so P2 catches a wrong range (a dropped
/// tail block, a rounded-down count) or a wrong combine in kernel code.
///
/// Adding an order: give it a `definition` specialization below, in words first.
#pragma once
#include <array>
#include <stdexcept>
#include <vector>

#include "ordo/order/orders.hpp"

namespace ordo::order {

template <class Order>
struct definition;  // no replay for an order without a written definition: a compile error

/// lane_strided: block b belongs to lane b mod 32; butterfly 16, 8, 4, 2, 1.
template <>
struct definition<lane_strided> {
  static int lane_of(int b, int /*nb*/) { return b % 32; }
  static constexpr std::array<int, 5> xor_offsets{16, 8, 4, 2, 1};
};

/// lane_blocked: with c = ceil(nb / 32) blocks per lane, block b belongs to lane floor(b / c).
template <>
struct definition<lane_blocked> {
  static int lane_of(int b, int nb) { return b / ((nb + 31) / 32); }
  static constexpr std::array<int, 5> xor_offsets{16, 8, 4, 2, 1};
};

/// The order's result from the terms of all nb blocks.
template <class Order>
float replay(const float* terms, int nb) {
  using def = definition<Order>;
  // each lane's sum, in ascending block order, starting from +0.0f
  std::array<float, 32> partial{};
  for (int b = 0; b < nb; ++b) {
    const int l = def::lane_of(b, nb);
    if (l < 0 || l >= 32) throw std::logic_error("order definition maps a block outside the warp");
    partial[std::size_t(l)] = partial[std::size_t(l)] + terms[b];
  }
  // value(level, lane): after `level` xor steps; value(L, l) = value(L-1, l) + value(L-1, l ^ off[L-1])
  constexpr int levels = int(def::xor_offsets.size());
  std::vector<std::array<float, 32>> value(levels + 1);
  value[0] = partial;
  for (int level = 1; level <= levels; ++level)
    for (int l = 0; l < 32; ++l)
      value[std::size_t(level)][std::size_t(l)] =
          value[std::size_t(level - 1)][std::size_t(l)] +
          value[std::size_t(level - 1)][std::size_t(l ^ def::xor_offsets[std::size_t(level - 1)])];
  return value[std::size_t(levels)][0];
}

}  // namespace ordo::order
