/// Provisional registration of hc (until registry::table<Op> of DESIGN §3a lands): the whole spec
/// space — every tier × stage of op — as named CPU entry points, so the property tests walk every
/// spec by construction. Wiring into the generic table replaces this file with one kernels/hc.cpp
/// line.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/ops/hc/cpu.hpp"
#include "ordo/ops/hc/hc.hpp"

namespace ordo::ops::hc {

struct cpu_entry {
  std::string name;  // "hc.r4.split"
  int tier;
  stage part;
  void (*run)(const problem&);
};

/// Every spec of the space, in op::for_each_spec's order.
inline const std::vector<cpu_entry>& cpu_entries() {
  static const std::vector<cpu_entry> all = [] {
    std::vector<cpu_entry> v;
    op::for_each_spec([&]<int R, stage S>() {
      v.push_back({std::string(op::name) + ".r" + std::to_string(R) + "." + std::string(name_of(S)), R, S,
                   &run_cpu<R, S>});
    });
    return v;
  }();
  return all;
}

/// The entry of the same stage at another tier (P1's one-row twin).
inline const cpu_entry& find_entry(int tier, stage s) {
  for (const auto& c : cpu_entries())
    if (c.tier == tier && c.part == s) return c;
  throw std::out_of_range("hc: no spec r" + std::to_string(tier) + "." + std::string(name_of(s)));
}

}  // namespace ordo::ops::hc
