/// Where each tensor of a model goes in one allocation (the GPU upload, device_weights.hpp; the
/// synthetic bench model, src/bench; tests place a host copy the same way): each block's tensors in
/// role order, except that the members of a same-input group (same_input_groups.hpp) come together
/// at the first member's place, back to back, so layer_step runs them as one qmv. A tensor starts
/// on a 256-byte boundary unless it continues the member placed just before it (same format and
/// row shape): it then starts where that member's last row ends, as a row of one matrix would, and
/// every qmv reads its rows wherever they start.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "ordo/model/ds4_tensor_map.hpp"
#include "ordo/model/gguf.hpp"
#include "ordo/runtime/weights.hpp"

namespace ordo::runtime {

/// One tensor to place: the block it belongs to (any number that is equal for one block's
/// tensors and grows from block to block), its role and its shape.
struct tensor_slot {
  uint32_t block = 0;
  model::ds4_role role{};
  gguf::ggml_type format{};
  uint64_t cols = 0, row_bytes = 0, experts = 1, bytes = 0;
};

/// The offset of every slot (in input order) in one allocation of `bytes`.
struct slot_placement {
  std::vector<uint64_t> offset;
  uint64_t bytes = 0;
};
slot_placement place_slots(std::span<const tensor_slot> slots);

/// The same for a model's tensors: every tensor once (a view two blocks share, e.g. llama's MTP
/// block reusing the main output head, keeps one place), keyed by its bytes in the mapping.
struct weight_placement {
  std::map<const std::byte*, uint64_t> offset;
  uint64_t bytes = 0;
  uint64_t at(const weight_view& v) const { return offset.at(v.data); }
};
weight_placement place_weights(const model_weights& w);

}  // namespace ordo::runtime
