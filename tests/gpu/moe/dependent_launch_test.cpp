// ops/moe's streamed passes launched as dependents (ops/moe/streaming.hpp, kernel.hpp;
// ops/qmv/dependent_launch.hpp) on the device: gate_up, its quantize pass and down may begin while
// the kernel before them drains, so each must read the routing, x, mid and mid_act that kernel (or
// one before it) wrote, never an earlier step's. Linked into moe_gpu_test (the device side:
// moe_chain.hpp).
//
// A chain on one stream, as decode runs it: a kernel writes step j's routing and x into ONE set of
// buffers, then gate_up and down run into step j's output, `steps` times with no host
// synchronization. Every step's output must be the bytes of the same step run alone, each launch
// after a full device synchronization. Rows differ in every step (new x, new experts), so a pass
// that read before its wait would see the step before's and differ.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "../../property/moe/harness.hpp"
#include "moe_chain.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using H = harness<ops::moe::op>;

const registry::entry<ops::moe::op>& entry_of(const std::string& layout, int tier, ops::moe::phase phase) {
  for (const auto& e : registry::table<ops::moe::op>)
    if (e.info.layout == layout && e.info.order == "ls32" && e.info.runs == phase && e.tier == tier) return e;
  throw std::runtime_error("no moe entry " + layout + " r" + std::to_string(tier));
}

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
  std::vector<std::byte> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(MoeGpuChain, EachStepReadsTheRoutingAndActivationsItsPredecessorsWrote) {
  constexpr int n_embd = 4096, n_ff = 2048, n_expert = 16, n_used = 6, steps = 8;
  for (const std::string layout : {"mxfp4", "q2"})
    for (const int tier : {1, 2, 8}) {
      moe_chain c;
      c.gate_up = &entry_of(layout, tier, ops::moe::phase::gate_up);
      c.down = &entry_of(layout, tier, ops::moe::phase::down);
      const auto d = H::make(layout, n_embd, n_ff, n_expert, n_used, n_expert, false, steps * tier, 97 + std::uint64_t(tier));
      for (int j = 0; j < steps; ++j) {  // step j's rows: pool rows j·tier, ..., (j + 1)·tier − 1
        std::vector<int> rows(static_cast<std::size_t>(tier));
        std::iota(rows.begin(), rows.end(), j * tier);
        H::buffers b;
        H::build(cpu_backend(), *c.gate_up, d, rows, H::tight_layout(), b);
        c.steps.push_back({b.x_routed, b.x_shared, bytes_of(b.ids), bytes_of(b.weights)});
        if (j > 0) continue;
        c.p = b.p;
        c.gate = std::move(b.gate), c.up = std::move(b.up), c.down_w = std::move(b.down);
        c.shared_gate = std::move(b.sgate), c.shared_up = std::move(b.sup), c.shared_down = std::move(b.sdown);
        c.mid = bytes_of(b.mid), c.mid_act = b.mid_act, c.out_floats = b.out.size();
      }
      const auto r = run_moe_chain(c);
      const std::size_t n = c.out_floats;
      int differing = 0;
      for (int j = 0; j < steps; ++j) {
        const bool same = std::memcmp(r.chained.data() + std::size_t(j) * n, r.alone.data() + std::size_t(j) * n, n * sizeof(float)) == 0;
        EXPECT_TRUE(same) << layout << " tier " << tier << " step " << j;
        differing += same ? 0 : 1;
      }
      // the steps' outputs differ from each other, so a pass reading the step before's inputs shows
      for (int j = 1; j < steps; ++j)
        EXPECT_NE(0, std::memcmp(r.alone.data(), r.alone.data() + std::size_t(j) * n, n * sizeof(float))) << layout << " tier " << tier;
      std::printf("  %s r%d: %d chained steps, %d differ from the step run alone\n", layout.c_str(), tier, steps, differing);
    }
}

}  // namespace
