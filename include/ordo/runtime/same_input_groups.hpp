/// Same-input groups (issue 12, "grouped launches"): matmuls of a block that read one input and
/// whose outputs are column ranges of one workspace row, so that members whose weights lie back to
/// back in memory run as ONE qmv over their concatenated rows. A qmv computes every output row
/// alone (the row's reduction order is the Order's, whatever the other rows are), so the merged
/// launch gives each member's rows the bits of the member's own launch; it only saves launches.
/// In DS4 Flash: q_a and kv (Q8_0, 1024 + 512 rows of x) in every block, and the compressor and
/// indexer projections (F16, 2·W + 2·256 + 64 rows of x) in the compressed layers: 1 launch a
/// block fewer, 4 more in a ratio-4 layer (5 matrices) and 1 more in a ratio-128 layer (2).
///
/// Placement (weight_placement.hpp) lays a block's group members back to back; layer_step
/// (matmul_group) merges each run of members for which `continues` holds and calls the rest
/// one by one, so a file whose tensors lie elsewhere (the CPU's mapping) gives the same bits.
#pragma once
#include <array>
#include <cstdint>
#include <span>

#include "ordo/model/ds4_tensor_map.hpp"
#include "ordo/runtime/step_plan.hpp"

namespace ordo::runtime {

/// A group's members in output-column order (the order placement lays their weights).
inline constexpr std::array<model::ds4_role, 2> attention_input_group = {model::ds4_role::attn_q_a, model::ds4_role::attn_kv};
inline constexpr std::array<model::ds4_role, 5> compressor_input_group = {
    model::ds4_role::attn_compressor_kv, model::ds4_role::attn_compressor_gate, model::ds4_role::indexer_compressor_kv,
    model::ds4_role::indexer_compressor_gate, model::ds4_role::indexer_proj};
inline constexpr std::array<std::span<const model::ds4_role>, 2> same_input_groups = {
    std::span<const model::ds4_role>(attention_input_group), std::span<const model::ds4_role>(compressor_input_group)};

/// Every member's output starts at a multiple of this many floats of the group's row (256 bytes:
/// the alignment every workspace stage row starts on), merged or not.
inline constexpr uint64_t group_column_align = 64;

inline constexpr uint64_t group_column_after(uint64_t column, uint64_t rows) {
  return (column + rows + group_column_align - 1) / group_column_align * group_column_align;
}

/// Whether `next`'s weight rows follow `prev`'s in memory so that one qmv over prev's rows then
/// next's is the two calls: one spec and quantizer, one row shape, next's first row where prev's
/// last row ends, and next's output column (prev's rows on) on the group's column alignment.
inline bool continues(const qmv_call& prev, const qmv_call& next) {
  const weight_view &a = *prev.weight, &b = *next.weight;
  return prev.entry == next.entry && prev.quantize == next.quantize && a.format == b.format && a.cols == b.cols &&
         a.row_bytes == b.row_bytes && a.experts == 1 && b.experts == 1 && a.rows % group_column_align == 0 &&
#if defined(ORDO_MUTANT_GROUP_IGNORES_PLACEMENT)
         true;  // mutant: merges members wherever their weights lie
#else
         b.data == a.data + a.rows * a.row_bytes;
#endif
}

/// The group `r` is a member of and its index there; {nullptr, 0} for a role in no group.
struct group_member {
  std::span<const model::ds4_role> group;
  std::size_t index = 0;
};
inline group_member group_of(model::ds4_role r) {
  for (auto g : same_input_groups)
    for (std::size_t i = 0; i < g.size(); ++i)
      if (g[i] == r) return {g, i};
  return {};
}

}  // namespace ordo::runtime
