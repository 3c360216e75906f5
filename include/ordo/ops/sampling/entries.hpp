/// Provisional registration of sampling (until registry::table<Op> of DESIGN §3a lands): every
/// tier × mode as a named CPU entry point, so the property tests walk every spec.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/ops/sampling/cpu.hpp"
#include "ordo/ops/sampling/sampling.hpp"

namespace ordo::ops::sampling {

struct cpu_entry {
  std::string name;  // "sampling.r4.greedy", "sampling.r4.sample"
  int tier;
  mode picks;
  void (*run)(const problem&);
};

inline const std::vector<cpu_entry>& cpu_entries() {
  static const std::vector<cpu_entry> all = [] {
    std::vector<cpu_entry> v;
    op::for_each_spec([&]<int R, mode M>() {
      v.push_back({std::string(op::name) + ".r" + std::to_string(R) + "." + std::string(name_of(M)), R, M, &run_cpu<R, M>});
    });
    return v;
  }();
  return all;
}

inline const cpu_entry& find_entry(int tier, mode m) {
  for (const auto& c : cpu_entries())
    if (c.tier == tier && c.picks == m) return c;
  throw std::out_of_range("sampling: no spec r" + std::to_string(tier) + "." + std::string(name_of(m)));
}

}  // namespace ordo::ops::sampling
