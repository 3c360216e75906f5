/// Provisional registration of router (until registry::table<Op> of DESIGN §3a lands): every
/// tier × selection as a named CPU entry point, so the property tests walk every spec.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/ops/router/cpu.hpp"
#include "ordo/ops/router/router.hpp"

namespace ordo::ops::router {

struct cpu_entry {
  std::string name;  // "router.r4.topk"
  int tier;
  selection chooses;
  void (*run)(const problem&);
};

inline const std::vector<cpu_entry>& cpu_entries() {
  static const std::vector<cpu_entry> all = [] {
    std::vector<cpu_entry> v;
    op::for_each_spec([&]<int R, selection S>() {
      v.push_back({std::string(op::name) + ".r" + std::to_string(R) + "." + std::string(name_of(S)), R, S, &run_cpu<R, S>});
    });
    return v;
  }();
  return all;
}

inline const cpu_entry& find_entry(int tier, selection s) {
  for (const auto& c : cpu_entries())
    if (c.tier == tier && c.chooses == s) return c;
  throw std::out_of_range("router: no spec r" + std::to_string(tier));
}

}  // namespace ordo::ops::router
