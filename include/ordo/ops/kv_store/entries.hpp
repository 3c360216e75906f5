/// Provisional registration of kv_store (until registry::table<Op> of DESIGN §3a lands): every
/// tier as a named CPU entry point, so the property tests walk every spec by construction.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/ops/kv_store/cpu.hpp"
#include "ordo/ops/kv_store/kv_store.hpp"

namespace ordo::ops::kv_store {

struct cpu_entry {
  std::string name;  // "kv_store.r4"
  int tier;
  void (*run)(const problem&);
};

/// Every spec of the space, in op::for_each_spec's order.
inline const std::vector<cpu_entry>& cpu_entries() {
  static const std::vector<cpu_entry> all = [] {
    std::vector<cpu_entry> v;
    op::for_each_spec([&]<int R>() { v.push_back({std::string(op::name) + ".r" + std::to_string(R), R, &run_cpu<R>}); });
    return v;
  }();
  return all;
}

inline const cpu_entry& find_entry(int tier) {
  for (const auto& c : cpu_entries())
    if (c.tier == tier) return c;
  throw std::out_of_range("kv_store: no spec r" + std::to_string(tier));
}

}  // namespace ordo::ops::kv_store
