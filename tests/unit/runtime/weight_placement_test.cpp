// Weight placement (include/ordo/runtime/weight_placement.hpp): every tensor once, 256-byte aligned
// unless it continues the group member before it, each block's same-input group members back to
// back; and what it is for: a session on a placed copy of the tiny synth model (ds4's type mix)
// runs each group as one qmv (fewer launches, counted by launch_profile) and gives every logit the
// bits of the session on the mapped file, where q_a and kv lie apart (and the compressor's kv and
// gate happen to lie back to back: one launch there too).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "ordo/runtime/launch_profile.hpp"
#include "ordo/runtime/row_layout.hpp"
#include "ordo/runtime/same_input_groups.hpp"
#include "ordo/runtime/session.hpp"
#include "ordo/runtime/weight_placement.hpp"
#include "synth_files.hpp"
#include "token_sequences.hpp"

namespace ordo::runtime {
namespace {

using model::ds4_role;
using t = gguf::ggml_type;

tensor_slot slot(uint32_t block, ds4_role r, t format, uint64_t rows, uint64_t row_bytes) {
  return {block, r, format, 4096, row_bytes, 1, rows * row_bytes};
}

TEST(weight_placement, group_members_back_to_back_the_rest_aligned_in_role_order) {
  // Block 1 lists its tensors out of order, with kv's format different in block 2. Row sizes that
  // are not multiples of 256 bytes, so a packed member and an aligned one start apart.
  const std::vector<tensor_slot> slots = {
      slot(1, ds4_role::attn_kv, t::q8_0, 5, 1088),          slot(1, ds4_role::attn_q_b, t::q8_0, 7, 1088),
      slot(1, ds4_role::attn_q_a, t::q8_0, 3, 1088),         slot(1, ds4_role::attn_compressor_gate, t::f16, 3, 2080),
      slot(1, ds4_role::attn_compressor_kv, t::f16, 3, 2080), slot(0, ds4_role::output, t::q8_0, 3, 1088),
      slot(2, ds4_role::attn_q_a, t::q8_0, 3, 1088),         slot(2, ds4_role::attn_kv, t::f16, 3, 2080),
  };
  const slot_placement p = place_slots(slots);
  ASSERT_EQ(p.offset.size(), slots.size());
  const auto end = [&](std::size_t i) { return p.offset[i] + slots[i].bytes; };
  EXPECT_EQ(p.offset[5], 0u);                     // block 0 first
  EXPECT_EQ(p.offset[2], align_up(end(5), 256));  // block 1: q_a (the group's place: its first member)...
  EXPECT_EQ(p.offset[0], end(2));                 // ... kv right after it, off the 256-byte grid
  EXPECT_NE(p.offset[0] % 256, 0u);
  EXPECT_EQ(p.offset[1], align_up(end(0), 256));  // q_b after the group (role order)
  EXPECT_EQ(p.offset[4], align_up(end(1), 256));  // the compressor group: kv, then gate right after
  EXPECT_EQ(p.offset[3], end(4));
  EXPECT_EQ(p.offset[6], align_up(end(3), 256));  // block 2: kv of another format is not packed
  EXPECT_EQ(p.offset[7], align_up(end(6), 256));
  EXPECT_NE(p.offset[7], end(6));
  EXPECT_EQ(p.bytes, align_up(end(7), 256));
}

/// The tiny model (Q8_0 dense) with its mapping and a host copy placed by place_weights.
struct placed_tiny {
  test::synth_model files = test::write_tiny(model::ds4_naming::ds4, "placement", t::q8_0, t::q8_0);
  model_weights mapped = model_weights::open(files.main, files.mtp);
  weight_placement at = place_weights(mapped);
  memory_arena memory{at.bytes, 256};
  model_weights placed;
  placed_tiny() {
    for (const weight_view* v : mapped.all()) std::memcpy(memory.data() + at.at(*v), v->data, v->bytes());
    placed = mapped.rebased([&](const weight_view& v) -> const std::byte* { return memory.data() + at.at(v); });
  }
};

TEST(weight_placement, the_tiny_models_tensors_each_once_groups_back_to_back) {
  const placed_tiny m;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const weight_view* v : m.mapped.all()) spans.push_back({m.at.at(*v), m.at.at(*v) + v->bytes()});
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i) EXPECT_LE(spans[i - 1].second, spans[i].first) << "tensors overlap";
  EXPECT_LE(spans.back().second, m.at.bytes);
  const auto& blocks = m.placed.layers();
  ASSERT_EQ(blocks.size(), 4u);  // ratios 0, 0, 4, 128
  for (const block_weights& b : blocks)
    for (auto group : same_input_groups) {
      const weight_view* prev = nullptr;
      for (ds4_role r : group) {
        const weight_view* v = b.find(r);
        if (!v) continue;
        if (prev) EXPECT_EQ(v->data, prev->data + prev->bytes()) << v->name << " does not follow " << prev->name;
        else EXPECT_EQ(std::size_t(v->data - m.memory.data()) % 256, 0u) << v->name;
        prev = v;
      }
    }
}

/// The groups of block b present, and the runs of members lying back to back in them (the
/// merge rule of same_input_groups.hpp, restated on the views: the row count on the column
/// alignment, the next member's bytes where the last one's end).
uint64_t groups(const block_weights& b) {
  uint64_t n = 0;
  for (auto group : same_input_groups) n += b.find(group[0]) ? 1 : 0;
  return n;
}
uint64_t runs(const block_weights& b) {
  uint64_t n = 0;
  for (auto group : same_input_groups) {
    const weight_view* prev = nullptr;
    for (ds4_role r : group) {
      const weight_view* v = b.find(r);
      if (!v) continue;
      n += !prev || prev->rows % 64 != 0 || v->data != prev->data + prev->bytes() ? 1 : 0;
      prev = v;
    }
  }
  return n;
}

/// Group members present in block b.
uint64_t members(const block_weights& b) {
  uint64_t n = 0;
  for (auto group : same_input_groups)
    for (ds4_role r : group) n += b.find(r) ? 1 : 0;
  return n;
}

uint64_t launches_of(const launch_profile& p, std::string_view kind_prefix) {
  uint64_t n = 0;
  for (const auto& l : p.lines()) n += l.kind.rfind(kind_prefix, 0) == 0 ? l.launches : 0;
  return n;
}
uint64_t qmv_launches(const launch_profile& p) { return launches_of(p, "qmv."); }

TEST(weight_placement, a_placed_copy_runs_each_group_as_one_qmv_with_the_bits_of_the_mapping) {
  const placed_tiny m;
  const model::ds4_hparams& h = m.mapped.hparams();
  session_options o;
  o.ctx = 256;
  session mapped(m.mapped, o), placed(m.mapped, m.placed, o);
  launch_profile pm, pp;
  mapped.profile(&pm);
  placed.profile(&pp);
  const auto prompt = test::prompt_tokens(21, h.n_vocab);  // chunks of 8, 8 and 5: emissions of both ratios
  EXPECT_EQ(std::memcmp(mapped.prefill(prompt, 8).data(), placed.prefill(prompt, 8).data(), h.n_vocab * sizeof(float)), 0);
  for (int32_t token : test::prompt_tokens(6, h.n_vocab)) {
    const auto a = mapped.decode(token), b = placed.decode(token);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), h.n_vocab * sizeof(float)), 0);
  }
  // Per layer step, each group is one launch on the placed copy; on the mapping, one per run of
  // members that happen to lie back to back in the file (the compressor's kv and gate do).
  uint64_t fewer_per_step = 0;
  for (uint32_t il = 0; il < h.n_layer; ++il) {
    EXPECT_EQ(runs(m.placed.layer(il)), groups(m.placed.layer(il))) << "layer " << il;
    fewer_per_step += runs(m.mapped.layer(il)) - runs(m.placed.layer(il));
  }
  EXPECT_GE(fewer_per_step, h.n_layer) << "q_a and kv lie apart in the file";
  const uint64_t steps = 3 + 6;  // the prompt's chunks of 8, 8 and 5, then 6 decodes
  EXPECT_EQ(qmv_launches(pm) - qmv_launches(pp), fewer_per_step * steps);
}

// session_options::fuse_launches off (`ordo bench --unfused`, the A/B of what fusing saves): every
// group member its own qmv and every call its own quantization, with the same bits.
TEST(weight_placement, unfused_launches_give_the_same_bits_with_more_launches) {
  const placed_tiny m;
  const model::ds4_hparams& h = m.mapped.hparams();
  session_options o;
  o.ctx = 256;
  session fused(m.mapped, m.placed, o);
  o.fuse_launches = false;
  session unfused(m.mapped, m.placed, o);
  launch_profile pf, pu;
  fused.profile(&pf);
  unfused.profile(&pu);
  const auto prompt = test::prompt_tokens(21, h.n_vocab);
  EXPECT_EQ(std::memcmp(fused.prefill(prompt, 8).data(), unfused.prefill(prompt, 8).data(), h.n_vocab * sizeof(float)), 0);
  for (int32_t token : test::prompt_tokens(3, h.n_vocab)) {
    const auto a = fused.decode(token), b = unfused.decode(token);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), h.n_vocab * sizeof(float)), 0);
  }
  uint64_t more_per_step = 0;
  for (uint32_t il = 0; il < h.n_layer; ++il) more_per_step += members(m.placed.layer(il)) - runs(m.placed.layer(il));
  const uint64_t steps = 3 + 3;  // the prompt's chunks of 8, 8 and 5, then 3 decodes
  EXPECT_EQ(qmv_launches(pu) - qmv_launches(pf), more_per_step * steps);
  EXPECT_GT(launches_of(pu, "quantize_rows."), launches_of(pf, "quantize_rows.")) << "every call quantizes its own input";
}

}  // namespace
}  // namespace ordo::runtime
