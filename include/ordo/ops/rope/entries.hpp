/// Provisional registration of rope (until registry::table<Op> of DESIGN §3a lands): every tier ×
/// direction as a named CPU entry point, so the property tests walk every spec by construction.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/ops/rope/cpu.hpp"
#include "ordo/ops/rope/rope.hpp"

namespace ordo::ops::rope {

struct cpu_entry {
  std::string name;  // "rope.r4.inverse"
  int tier;
  direction turn;
  void (*run)(const problem&);
};

inline const std::vector<cpu_entry>& cpu_entries() {
  static const std::vector<cpu_entry> all = [] {
    std::vector<cpu_entry> v;
    op::for_each_spec([&]<int R, direction D>() {
      v.push_back({std::string(op::name) + ".r" + std::to_string(R) + "." + std::string(name_of(D)), R, D,
                   &run_cpu<R, D>});
    });
    return v;
  }();
  return all;
}

inline const cpu_entry& find_entry(int tier, direction d) {
  for (const auto& c : cpu_entries())
    if (c.tier == tier && c.turn == d) return c;
  throw std::out_of_range("rope: no spec r" + std::to_string(tier));
}

}  // namespace ordo::ops::rope
