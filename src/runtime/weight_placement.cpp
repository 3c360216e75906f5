// Tensor placement of one allocation (include/ordo/runtime/weight_placement.hpp).
#include "ordo/runtime/weight_placement.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <set>

#include "ordo/runtime/row_layout.hpp"
#include "ordo/runtime/same_input_groups.hpp"

namespace ordo::runtime {

namespace {

// Each role's rank in a block's placement: role order, each group's members at its first member's
// place, in group order.
std::array<std::size_t, model::ds4_role_count> placement_ranks() {
  std::array<std::size_t, model::ds4_role_count> rank{};
  std::size_t next = 0;
  for (std::size_t i = 0; i < model::ds4_role_count; ++i) {
    const group_member m = group_of(static_cast<model::ds4_role>(i));
    if (m.group.empty()) rank[i] = next++;
    else if (m.index == 0)
      for (model::ds4_role r : m.group) rank[static_cast<std::size_t>(r)] = next++;
  }
  return rank;
}

bool same_rows(const tensor_slot& a, const tensor_slot& b) {
  return a.format == b.format && a.cols == b.cols && a.row_bytes == b.row_bytes && a.experts == 1 && b.experts == 1;
}

}  // namespace

slot_placement place_slots(std::span<const tensor_slot> slots) {
  static const auto rank = placement_ranks();
  std::vector<std::size_t> order(slots.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const tensor_slot &x = slots[a], &y = slots[b];
    if (x.block != y.block) return x.block < y.block;
    return rank[static_cast<std::size_t>(x.role)] < rank[static_cast<std::size_t>(y.role)];
  });
  slot_placement p;
  p.offset.resize(slots.size());
  const tensor_slot* prev = nullptr;
  for (std::size_t i : order) {
    const tensor_slot& s = slots[i];
    const group_member m = group_of(s.role);
    const group_member pm = prev ? group_of(prev->role) : group_member{};
    const bool packed = prev && prev->block == s.block && !m.group.empty() && m.index > 0 && pm.group.data() == m.group.data() &&
                        same_rows(*prev, s);
    p.offset[i] = packed ? p.bytes : align_up(p.bytes, 256);
    p.bytes = p.offset[i] + s.bytes;
    prev = &s;
  }
  p.bytes = align_up(p.bytes, 256);
  return p;
}

weight_placement place_weights(const model_weights& w) {
  std::vector<tensor_slot> slots;
  std::vector<const std::byte*> data;
  std::set<const std::byte*> seen;  // a view two blocks share is placed once
  uint32_t block = 0;
  auto add = [&](const block_weights& b) {
    for (std::size_t r = 0; r < model::ds4_role_count; ++r) {
      const weight_view& v = b.views[r];
      if (!v || !seen.insert(v.data).second) continue;
      slots.push_back({block, static_cast<model::ds4_role>(r), v.format, v.cols, v.row_bytes, v.experts, v.bytes()});
      data.push_back(v.data);
    }
    ++block;
  };
  add(w.globals());
  for (const auto& l : w.layers()) add(l);
  if (w.mtp()) add(*w.mtp());
  const slot_placement p = place_slots(slots);
  weight_placement out;
  out.bytes = p.bytes;
  for (std::size_t i = 0; i < slots.size(); ++i) out.offset.emplace(data[i], p.offset[i]);
  return out;
}

}  // namespace ordo::runtime
