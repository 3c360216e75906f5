/// Provisional registration of rmsnorm (until registry::table<Op> of DESIGN §3a lands): the whole
/// spec space — every tier × order × weighting × epilogue of op — as named CPU entry points, so
/// the property tests walk every spec by construction. Wiring into the generic table replaces
/// this file with one kernels/rmsnorm.cpp line.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "ordo/ops/rmsnorm/cpu.hpp"
#include "ordo/ops/rmsnorm/rmsnorm.hpp"

namespace ordo::ops::rmsnorm {

struct cpu_entry {
  std::string name;  // "rmsnorm.r4.ls32.weighted.q8_32"
  int tier;
  std::string_view order;
  weighting weights;
  epilogue writes;
  void (*run)(const problem&);
};

namespace detail {
template <int R, class Order, weighting W, epilogue E>
cpu_entry make_entry() {
  return {std::string(op::name) + ".r" + std::to_string(R) + "." + std::string(Order::name) + "." +
              std::string(name_of(W)) + "." + std::string(name_of(E)),
          R, Order::name, W, E, &run_cpu<R, Order, W, E>};
}
template <int R, class Order>
void add_options(std::vector<cpu_entry>& v) {
  v.push_back(make_entry<R, Order, weighting::weighted, epilogue::f32>());
  v.push_back(make_entry<R, Order, weighting::weighted, epilogue::q8_32>());
  v.push_back(make_entry<R, Order, weighting::plain, epilogue::f32>());
  v.push_back(make_entry<R, Order, weighting::plain, epilogue::q8_32>());
}
}  // namespace detail

/// Every spec of the space, sorted by tier within each order.
inline const std::vector<cpu_entry>& cpu_entries() {
  static const std::vector<cpu_entry> all = [] {
    std::vector<cpu_entry> v;
    op::for_each_order([&]<class Order>() {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (detail::add_options<op::tiers::values[I], Order>(v), ...);
      }(std::make_index_sequence<op::tiers::values.size()>{});
    });
    return v;
  }();
  return all;
}

/// The entry of the same order and options at another tier (P1's one-row twin).
inline const cpu_entry& find_entry(int tier, std::string_view order, weighting w, epilogue e) {
  for (const auto& c : cpu_entries())
    if (c.tier == tier && c.order == order && c.weights == w && c.writes == e) return c;
  throw std::out_of_range("rmsnorm: no spec r" + std::to_string(tier) + "." + std::string(order));
}

}  // namespace ordo::ops::rmsnorm
