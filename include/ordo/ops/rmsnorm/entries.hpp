/// Provisional registration of rmsnorm (until registry::table<Op> of DESIGN §3a lands): the whole
/// spec space — every tier × order × weighting × epilogue of op — as named CPU entry points, so
/// the property tests walk every spec by construction. Wiring into the generic table replaces
/// this file with one kernels/rmsnorm.cpp line.
#pragma once
#include <string>
#include <stdexcept>
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

/// Every spec of the space, in op::for_each_spec's order.
inline const std::vector<cpu_entry>& cpu_entries() {
  static const std::vector<cpu_entry> all = [] {
    std::vector<cpu_entry> v;
    op::for_each_spec([&]<int R, class Order, weighting W, epilogue E>() {
      v.push_back({std::string(op::name) + ".r" + std::to_string(R) + "." + std::string(Order::name) + "." +
                       std::string(name_of(W)) + "." + std::string(name_of(E)),
                   R, Order::name, W, E, &run_cpu<R, Order, W, E>});
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
