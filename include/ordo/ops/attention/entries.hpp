/// Provisional registration of attention (until registry::table<Op> of DESIGN §3a lands): the whole
/// spec space — every tier × order × visibility × schedule of op — as named CPU entry points, so
/// the property tests walk every spec by construction.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/ops/attention/attention.hpp"
#include "ordo/ops/attention/cpu.hpp"

namespace ordo::ops::attention {

struct cpu_entry {
  std::string name;  // "attention.r4.kv64.general.split"
  int tier;
  std::string_view order;
  int chunk;
  visibility sees;
  schedule runs;
  std::size_t (*workspace)(const problem&);  // floats the split schedule needs
  void (*run)(const problem&);
};

/// Every spec of the space, in op::for_each_spec's order.
inline const std::vector<cpu_entry>& cpu_entries() {
  static const std::vector<cpu_entry> all = [] {
    std::vector<cpu_entry> v;
    op::for_each_spec([&]<int R, class Order, visibility V, schedule S>() {
      v.push_back({std::string(op::name) + ".r" + std::to_string(R) + "." + std::string(Order::name) + "." +
                       std::string(name_of(V)) + "." + std::string(name_of(S)),
                   R, Order::name, Order::chunk, V, S, &workspace_floats<Order>, &run_cpu<R, Order, V, S>});
    });
    return v;
  }();
  return all;
}

/// The entry of the given tier, order and options (P1's one-row twin, the schedule's twin).
inline const cpu_entry& find_entry(int tier, std::string_view order, visibility v, schedule s) {
  for (const auto& c : cpu_entries())
    if (c.tier == tier && c.order == order && c.sees == v && c.runs == s) return c;
  throw std::out_of_range("attention: no spec r" + std::to_string(tier) + "." + std::string(order));
}

}  // namespace ordo::ops::attention
