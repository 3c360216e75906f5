/// Provisional registration of compressor (until registry::table<Op> of DESIGN §3a lands): every
/// store spec (tier × ratio) and every emit spec (ratio × order) as named CPU entry points, so the
/// property tests walk every spec by construction.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/ops/compressor/compressor.hpp"
#include "ordo/ops/compressor/cpu.hpp"

namespace ordo::ops::compressor {

struct store_entry {
  std::string name;  // "compressor.store.r4.ratio128"
  int tier;
  ratio geometry;
  void (*run)(const store_problem&);
};

struct emit_entry {
  std::string name;  // "compressor.emit.ratio4.ls32" (attention rows), "compressor.emit.ratio4.ls32.indexer"
  ratio geometry;
  std::string_view order;
  emitted rows;
  void (*run)(const emit_problem&);
};

inline const std::vector<store_entry>& store_entries() {
  static const std::vector<store_entry> all = [] {
    std::vector<store_entry> v;
    op::for_each_store_spec([&]<int R, ratio Ra>() {
      v.push_back({std::string(op::name) + ".store.r" + std::to_string(R) + "." + std::string(name_of(Ra)), R, Ra,
                   &run_store_cpu<R, Ra>});
    });
    return v;
  }();
  return all;
}

inline const std::vector<emit_entry>& emit_entries() {
  static const std::vector<emit_entry> all = [] {
    std::vector<emit_entry> v;
    op::for_each_emit_spec([&]<ratio Ra, class Order, emitted E>() {
      v.push_back({std::string(op::name) + ".emit." + std::string(name_of(Ra)) + "." + std::string(Order::name) +
                       (E == emitted::indexer ? ".indexer" : ""),
                   Ra, Order::name, E, &run_emit_cpu<Ra, Order, E>});
    });
    return v;
  }();
  return all;
}

inline const store_entry& find_store(int tier, ratio r) {
  for (const auto& c : store_entries())
    if (c.tier == tier && c.geometry == r) return c;
  throw std::out_of_range("compressor: no store spec r" + std::to_string(tier) + "." + std::string(name_of(r)));
}

inline const emit_entry& find_emit(ratio r, std::string_view order, emitted rows = emitted::attention) {
  for (const auto& c : emit_entries())
    if (c.geometry == r && c.order == order && c.rows == rows) return c;
  throw std::out_of_range("compressor: no emit spec " + std::string(name_of(r)) + "." + std::string(order));
}

}  // namespace ordo::ops::compressor
