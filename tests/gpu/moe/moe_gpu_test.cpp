// moe on the GPU at DS4 dims (n_embd 4096, n_ff_exp 2048, 6 experts a row + the shared one), for
// the layouts the engine runs (q2, mxfp4) in ls32: every row of gate_up (mid, mid_act, g, u) and
// down (out) at tiers 1, 2, 8 and the largest: GPU tier t == CPU executor tier t (E2) and == GPU
// tier 1 on the row alone (P1 on the device). At these dims the streamed passes
// (ops/moe/streaming.hpp) run Q8_0 and MXFP4 rows as 4 (gate/up) or 2 (down) windows of 32 blocks
// and IQ2_XXS / Q2_K rows as one window of 16 / 8 blocks, which the small property shapes do not.
// 16 experts (ids from all 16: rows share experts, and a tier's rows make several units).
// Tight rows (every window in 16-byte granules) take the ring's bulk copies; rows padded by 4
// bytes take its cp.async path (ops/qmv/window_ring.hpp): both run, at tiers 1 and 2 for the padded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "../../property/moe/harness.hpp"
#include "device_backend.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using H = harness<ops::moe::op>;

constexpr int n_embd = 4096, n_ff = 2048, n_expert = 16, n_used = 6;

class MoeGpuDs4 : public ::testing::TestWithParam<const char*> {};

TEST_P(MoeGpuDs4, EveryRowMatchesCpuAndTier1) {
  const std::string layout = GetParam();
  int largest = 0;
  for (const auto& e : registry::table<ops::moe::op>)
    if (e.info.layout == layout && e.info.order == "ls32") largest = std::max(largest, e.tier);
  ASSERT_GT(largest, 0) << layout;
  const auto d = H::make(layout, n_embd, n_ff, n_expert, n_used, n_expert, false, largest, 11);
  const auto gpu = device_backend();
  H::layout padded;
  padded.weight_pad = 4;
  int checked = 0;
  for (const bool tight : {true, false})
  for (const auto phase : {ops::moe::phase::gate_up, ops::moe::phase::down}) {
    const H::layout mem = tight ? H::tight_layout() : padded;
    const registry::entry<ops::moe::op>* one = nullptr;
    for (const auto& e : registry::table<ops::moe::op>)
      if (e.info.layout == layout && e.info.order == "ls32" && e.info.runs == phase && e.tier == 1) one = &e;
    ASSERT_NE(one, nullptr);
    std::vector<std::vector<std::byte>> alone;
    for (int r = 0; r < largest; ++r) alone.push_back(H::run(gpu, *one, d, {r}, mem).rows[0]);
    for (const auto& e : registry::table<ops::moe::op>) {
      if (e.info.layout != layout || e.info.order != "ls32" || e.info.runs != phase) continue;
      if (e.tier != 1 && e.tier != 2 && (!tight || (e.tier != 8 && e.tier != largest))) continue;
      std::vector<int> ids(static_cast<std::size_t>(e.tier));
      std::iota(ids.begin(), ids.end(), 0);
      const auto on_gpu = H::run(gpu, e, d, ids, mem);
      const auto on_cpu = H::run(cpu_backend(), e, d, ids, mem);
      ASSERT_TRUE(on_gpu.padding_intact) << e.name.view();
      for (int r = 0; r < e.tier; ++r) {
        EXPECT_TRUE(same_bits(on_gpu.rows[std::size_t(r)], on_cpu.rows[std::size_t(r)])) << e.name.view() << " row " << r;
        EXPECT_TRUE(same_bits(on_gpu.rows[std::size_t(r)], alone[std::size_t(r)])) << e.name.view() << " row " << r;
      }
      std::printf("  %s: %d rows, %s rows, GPU == CPU == tier 1\n", std::string(e.name.view()).c_str(), e.tier,
                  tight ? "tight" : "padded");
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);
}

INSTANTIATE_TEST_SUITE_P(Ds4, MoeGpuDs4, ::testing::Values("q2", "mxfp4"));

// The dims above take the streamed passes' paths this test exists for.
TEST(MoeGpuDs4Windows, RowsAreMultiWindowAndWholeRowWindows) {
  namespace st = ops::moe::streaming;
  using mx = ops::moe::mxfp4_layout;
  constexpr int gu = st::row_stage_bytes_of_both<mx::gate_up, mx::shared>, dn = st::row_stage_bytes_of_both<mx::down, mx::shared>;
  EXPECT_EQ((st::windows_of<quant::q8_0, gu>(n_embd / 32)), 4);
  // MXFP4 slots of the mxfp4 layout take two 32-block windows (a slot sized for Q8_0): gate/up
  // rows in two slot windows, down rows in one, each with both of its windows
  EXPECT_EQ((st::slot_blocks<quant::mxfp4, gu>), 64);
  EXPECT_EQ((st::windows_of<quant::mxfp4, gu>(n_embd / 32)), 2);
  EXPECT_EQ((st::windows_of<quant::mxfp4, dn>(n_ff / 32)), 1);
  EXPECT_EQ((st::slot_blocks<quant::q8_0, dn>), 32);
  using q2 = ops::moe::q2_layout;
  constexpr int q2_gu = st::row_stage_bytes_of_both<q2::gate_up, q2::shared>, q2_dn = st::row_stage_bytes_of_both<q2::down, q2::shared>;
  EXPECT_EQ((st::windows_of<quant::iq2_xxs, q2_gu>(n_embd / 256)), 1);
  EXPECT_EQ((st::windows_of<quant::q2_k, q2_dn>(n_ff / 256)), 1);
  EXPECT_GT(n_embd / 256, 8);  // more than the props' 1..2 blocks: the cooperative window's later steps run
}

// Tight DS4 rows are in 16-byte granules (the bulk copies), rows padded by 4 bytes are not (cp.async).
TEST(MoeGpuDs4Windows, TightRowsTakeBulkCopiesPaddedRowsDoNot) {
  namespace st = ops::moe::streaming;
  auto problem_of = [](auto layout, std::size_t pad) {
    using L = decltype(layout);
    auto row = [&](auto format, int k) {
      using F = decltype(format);
      return std::size_t(k / F::dot_elems) * F::block_bytes + pad;
    };
    ops::moe::problem p{};
    p.n_embd = n_embd, p.n_ff = n_ff;
    p.gate = {nullptr, row(typename L::gate_up{}, n_embd), row(typename L::gate_up{}, n_embd) * n_ff};
    p.up = p.gate;
    p.down = {nullptr, row(typename L::down{}, n_ff), row(typename L::down{}, n_ff) * n_embd};
    p.shared_gate = {nullptr, row(typename L::shared{}, n_embd)};
    p.shared_up = p.shared_gate;
    p.shared_down = {nullptr, row(typename L::shared{}, n_ff)};
    return p;
  };
  EXPECT_TRUE(st::windows_in_granules<ops::moe::mxfp4_layout>(problem_of(ops::moe::mxfp4_layout{}, 0)));
  EXPECT_TRUE(st::windows_in_granules<ops::moe::q2_layout>(problem_of(ops::moe::q2_layout{}, 0)));
  EXPECT_FALSE(st::windows_in_granules<ops::moe::mxfp4_layout>(problem_of(ops::moe::mxfp4_layout{}, 4)));
  EXPECT_FALSE(st::windows_in_granules<ops::moe::q2_layout>(problem_of(ops::moe::q2_layout{}, 4)));
}

}  // namespace

int main(int argc, char** argv) {
  if (device_count() == 0) {
    std::printf("SKIP: no GPU device (moe GPU tests need one)\n");
    return 0;
  }
  std::printf("device: %s\n", device_name().c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
