// The step workspace (include/ordo/runtime/workspace.hpp): stages sized from the model, strided
// at allocation width, rows of different stages never overlap.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "ordo/runtime/workspace.hpp"

namespace ordo::runtime {
namespace {

TEST(workspace, stages_follow_the_model) {
  const model::ds4_hparams h = model::ds4_flash_hparams();
  const workspace_layout l = plan_workspace(h, 32768, 16, {256, 0});
  EXPECT_EQ(l.at(stage::hc).row_bytes, 16384u * 4);
  EXPECT_EQ(l.at(stage::q).row_bytes, 64u * 512 * 4);
  EXPECT_EQ(l.at(stage::x_q8).row_bytes, 4096u * 4);
  EXPECT_EQ(l.at(stage::idx_scores).row_bytes, 32768u / 4 * 4);
  EXPECT_EQ(l.at(stage::idx_top).row_bytes, 512u * 4);
  // Visible rows per head: the raw window plus max(top-k 512, 32768/128 = 256) compressed rows,
  // in 10 chunks of 64; a slot is the chunk max, den_c and acc_c[512].
  EXPECT_EQ(l.at(stage::attn_split).row_bytes, 64u * 10 * (2 + 512) * 4);
  EXPECT_EQ(l.at(stage::mid).row_bytes, (6u + 1) * 2048 * 4);  // six routed slots and the shared expert
  EXPECT_EQ(l.at(stage::logits).row_bytes, 129280u * 4);
  for (const auto& s : l.stages) EXPECT_EQ(s.rows, 16u);
  EXPECT_EQ(stage_name(stage::x_q8), "x_q8");
  EXPECT_EQ(stage_name(stage::logits), "logits");
}

TEST(workspace, rows_are_strided_at_allocation_width_and_disjoint) {
  model::ds4_hparams h = model::ds4_flash_hparams();
  h.n_vocab = 1000;
  workspace ws(plan_workspace(h, 1024, 3, {64, 12}));
  struct span { std::byte *a, *b; };
  std::vector<span> spans;
  for (std::size_t i = 0; i < stage_count; ++i) {
    const auto s = static_cast<stage>(i);
    const auto& rl = ws.layout().at(s);
    EXPECT_EQ(rl.stride % 64, 0u);
    EXPECT_GE(rl.stride, rl.row_bytes + 12);
    for (uint32_t r = 0; r < 3; ++r) {
      std::byte* p = ws.row(s, r);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
      if (rl.row_bytes) spans.push_back({p, p + rl.row_bytes});
    }
    EXPECT_THROW(ws.row(s, 3), std::out_of_range);
  }
  std::sort(spans.begin(), spans.end(), [](const span& x, const span& y) { return x.a < y.a; });
  for (std::size_t i = 1; i < spans.size(); ++i) EXPECT_LE(spans[i - 1].b, spans[i].a);
}

}  // namespace
}  // namespace ordo::runtime
