/// Provisional registration of indexer (until registry::table<Op> of DESIGN §3a lands): every
/// tier × selector as a named CPU entry point, so the property tests walk every spec.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/ops/indexer/cpu.hpp"
#include "ordo/ops/indexer/indexer.hpp"

namespace ordo::ops::indexer {

struct cpu_entry {
  std::string name;  // "indexer.r4.ls32.hier"
  int tier;
  selector selects;
  void (*run)(const problem&);
};

inline const std::vector<cpu_entry>& cpu_entries() {
  static const std::vector<cpu_entry> all = [] {
    std::vector<cpu_entry> v;
    op::for_each_spec([&]<int R, class Order, selector S>() {
      v.push_back({std::string(op::name) + ".r" + std::to_string(R) + "." + std::string(Order::name) + "." +
                       std::string(name_of(S)),
                   R, S, &run_cpu<R, Order, S>});
    });
    return v;
  }();
  return all;
}

inline const cpu_entry& find_entry(int tier, selector s) {
  for (const auto& c : cpu_entries())
    if (c.tier == tier && c.selects == s) return c;
  throw std::out_of_range("indexer: no spec r" + std::to_string(tier));
}

}  // namespace ordo::ops::indexer
