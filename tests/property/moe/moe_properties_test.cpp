// moe: the generic drivers (P1–P5 + the oracle, DESIGN §7) over every spec on the CPU executor,
// and the checkable reuse of qmv: every pair's gate, up and down projection (the probes) has the
// bits of qmv at tier 1 on the expert's slice, with rows sharing experts.
#include <cstring>

#include "gtest_family.hpp"
#include "ordo/ops/qmv/qmv.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using H = harness<ops::moe::op>;

TEST(MoeProperties, SpaceHasEveryLayoutTierOrderAndPhase) {
  // 5 layouts × ls32 + the q8_0 layout × lb32, × the preset's tiers, × 2 phases
  EXPECT_EQ(registry::table<ops::moe::op>.size(), std::size_t(6 * tune::preset::qmv::tiers::values.size() * 2));
  EXPECT_NO_THROW(registry::find<ops::moe::op>("moe.q2.r1.ls32.gate_up"));
  EXPECT_NO_THROW(registry::find<ops::moe::op>("moe.q8_0.r16.lb32.down"));
}

TEST(MoeProperties, EverySpecPassesTheDrivers) {
  expect_family_passes<ops::moe::op>(cpu_backend(), property_set::cpu);
}

/// One qmv tier-1 output row `n_out` long of weights `w` against activation row `act`.
std::vector<float> qmv_r1(std::string_view format, std::string_view order, const std::byte* w, std::size_t row_bytes,
                          int n_out, const std::byte* act, std::size_t act_bytes, int k) {
  const auto& e = registry::find_axes<ops::qmv::op>(format, "r1", order);
  std::vector<float> out(static_cast<std::size_t>(n_out));
  e.run_cpu({w, row_bytes, act, act_bytes, out.data(), std::size_t(n_out), n_out, k, 1});
  return out;
}

std::vector<float> slice(const float* base, std::size_t at, int n) { return {base + at, base + at + n}; }

// The partials of a full tier-8 run of both phases (rows drawn from 8 experts, so most experts
// serve several rows in one pass) against qmv.<format>.r1.<order> on each pair's expert slice.
TEST(MoeProperties, EveryPairsProjectionsAreQmvTierOneBits) {
  for (const char* layout : {"q2", "mxfp4", "q8_0", "q4_k", "f32"}) {
    for (const char* order : {"ls32", "lb32"}) {
      const std::string gu_name = std::string("moe.") + layout + ".r8." + order + ".gate_up";
      const std::string dn_name = std::string("moe.") + layout + ".r8." + order + ".down";
      const auto* gu_it = std::find_if(registry::table<ops::moe::op>.begin(), registry::table<ops::moe::op>.end(),
                                       [&](const auto& e) { return e.name.view() == gu_name; });
      if (gu_it == registry::table<ops::moe::op>.end()) continue;  // lb32 exists for some layouts only
      const auto& gu = *gu_it;
      const auto& dn = registry::find<ops::moe::op>(dn_name);
      const int dot = H::dot_of(layout), chunk = H::chunk_of(layout);
      const auto d = H::make(layout, 40 * dot / (dot == 32 ? 1 : 8), 2 * chunk, 12, 6, 8, false, 8, 7);
      H::buffers b;
      H::build(cpu_backend(), gu, d, detail::iota(8), H::tight_layout(), b);
      auto p = b.p;
      const std::size_t slots = 7;
      std::vector<float> g(8 * slots * p.mid_stride), u(g.size()), part(8 * slots * std::size_t(d.n_embd));
      p.gate_out = g.data();
      p.up_out = u.data();
      p.partials = part.data();
      p.partial_stride = std::size_t(d.n_embd);
      gu.run_cpu(p);
      dn.run_cpu(p);  // reads the mid_act gate_up wrote
      const auto acts = H::slot_act_bytes(d);
      int checked = 0;
      for (int i = 0; i < 8; ++i)
        for (int k = 0; k <= 6; ++k) {
          const bool sh = k == 6;
          const int e = sh ? 0 : d.pool[std::size_t(i)].ids[std::size_t(k)];
          const std::string_view f_in = sh ? gu.info.shared : gu.info.gate_up, f_dn = sh ? gu.info.shared : gu.info.down;
          const std::byte* x = sh ? p.x_shared + std::size_t(i) * p.x_shared_row_bytes : p.x_routed + std::size_t(i) * p.x_routed_row_bytes;
          const std::size_t xb = sh ? p.x_shared_row_bytes : p.x_routed_row_bytes;
          const std::byte* gw = sh ? p.shared_gate.data : p.gate.data + std::size_t(e) * p.gate.expert_bytes;
          const std::byte* uw = sh ? p.shared_up.data : p.up.data + std::size_t(e) * p.up.expert_bytes;
          const std::byte* dw = sh ? p.shared_down.data : p.down.data + std::size_t(e) * p.down.expert_bytes;
          const std::size_t grow = sh ? p.shared_gate.row_bytes : p.gate.row_bytes, drow = sh ? p.shared_down.row_bytes : p.down.row_bytes;
          const std::size_t s = std::size_t(i) * slots + std::size_t(k);
          EXPECT_TRUE(same_bits(slice(g.data(), s * p.mid_stride, d.n_ff), qmv_r1(f_in, order, gw, grow, d.n_ff, x, xb, d.n_embd)))
              << gu_name << " gate row " << i << " slot " << k;
          EXPECT_TRUE(same_bits(slice(u.data(), s * p.mid_stride, d.n_ff), qmv_r1(f_in, order, uw, grow, d.n_ff, x, xb, d.n_embd)))
              << gu_name << " up row " << i << " slot " << k;
          EXPECT_TRUE(same_bits(slice(part.data(), s * std::size_t(d.n_embd), d.n_embd),
                                qmv_r1(f_dn, order, dw, drow, d.n_embd, p.mid_act + s * p.mid_act_row_bytes, acts[std::size_t(k)], d.n_ff)))
              << dn_name << " down row " << i << " slot " << k;
          ++checked;
        }
      EXPECT_EQ(checked, 56);
      // and the rows really shared experts (otherwise this would check one-row passes only)
      std::vector<int> users(12, 0);
      for (const auto& r : d.pool)
        for (int id : r.ids) ++users[std::size_t(id)];
      EXPECT_GE(*std::max_element(users.begin(), users.end()), 4) << layout;
    }
  }
}

}  // namespace
