// Kept mutation checks (issue 10): each mutant is the shipped moe kernel with one of its `steps`
// (ops/moe/body.hpp) changed, built here as its own template instance (a test-local steps type,
// so no ODR clash with the shipped specs) and put into a copy of the real registry entry. The
// default driver run (the same RC_PARAMS as every property test) must report each one.
#include "gtest_family.hpp"
#include "ordo/ops/cpu_executor.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using moe_entry = registry::entry<ops::moe::op>;
using policy = tune::preset::qmv::policy;

/// One row's partial order changed: in a full pass (R pairs), the last pair's blocks go to the
/// lanes as lane_blocked assigns them, not as the spec's Order does (within one lane, a change
/// of order is invisible while a lane owns at most two blocks: a + b == b + a). Rows alone are
/// untouched.
struct last_pair_other_lane_split : ops::moe::steps {
  template <quant::quant_format F, class Order, int R, class Rows>
  static void accumulate(const std::byte* window, int w0, int w1, int nb, int lane, int live, const Rows& rows, float (&acc)[R]) {
    if (R < 2 || live < R) return ops::moe::steps::accumulate<F, Order, R>(window, w0, w1, nb, lane, live, rows, acc);
    ops::moe::steps::accumulate<F, Order, R>(window, w0, w1, nb, lane, live - 1, rows, acc);
    const order::lane_range r = order::lane_blocked::range(lane, nb, w0, w1);  // MUTATION: Order::range
    for (int b = r.begin; b < r.end; b += r.step) {
      const auto* w = reinterpret_cast<const typename F::block*>(window + std::size_t(b - w0) * ops::qmv::dot_bytes<F>);
      acc[R - 1] = acc[R - 1] + F::dot_block(w, *(rows.row(R - 1) + b));
    }
  }
};

/// The weighted-sum order changed: the shared expert first, then the slots.
struct shared_expert_first : ops::moe::steps {
  static float weighted_sum(const float* part, int n_used) {
    float s = part[n_used];  // MUTATION: shared last
    for (int k = 0; k < n_used; ++k) s = s + part[k];
    return s;
  }
};

/// An expert's weights read for a row that did not select it: row 1 is grouped with row 0's experts.
struct row_one_reads_row_zeros_experts : ops::moe::steps {
  static int expert_of(const ops::moe::problem& p, int i, int k) {
    return ops::moe::steps::expert_of(p, i == 1 ? 0 : i, k);  // MUTATION: i
  }
};

template <class Kernel>
moe_entry mutant_of(std::string_view name) {
  moe_entry e = registry::find<ops::moe::op>(name);
  e.run_cpu = &ops::run_cpu<Kernel>;
  return e;
}

spec_report check(const moe_entry& mutant) {
  auto r = check_spec(cpu_backend(), mutant, mutant_params(), property_set::cpu);
  std::printf("mutant %s\n", r.line().c_str());
  return r;
}

using ops::moe::phase;

TEST(MoeMutants, OneRowsPartialOrderChangedIsCaughtByP1AndP2) {
  const auto a = check(mutant_of<ops::moe::kernel<ops::moe::q8_0_layout, 4, order::lane_strided, phase::gate_up, policy,
                                                  last_pair_other_lane_split>>("moe.q8_0.r4.ls32.gate_up"));
  EXPECT_EQ(a.status_of("P1"), outcome::fail);
  EXPECT_EQ(a.status_of("P2"), outcome::fail);
  // (a layout of 32-element blocks: its down reductions reach 33..40 blocks, so some lanes own two)
  const auto b = check(mutant_of<ops::moe::kernel<ops::moe::mxfp4_layout, 8, order::lane_strided, phase::down, policy,
                                                  last_pair_other_lane_split>>("moe.mxfp4.r8.ls32.down"));
  EXPECT_EQ(b.status_of("P1"), outcome::fail);
  EXPECT_EQ(b.status_of("P2"), outcome::fail);
}

TEST(MoeMutants, WeightedSumOrderChangedIsCaughtByReplay) {
  const auto r = check(mutant_of<ops::moe::kernel<ops::moe::mxfp4_layout, 2, order::lane_strided, phase::down, policy,
                                                  shared_expert_first>>("moe.mxfp4.r2.ls32.down"));
  EXPECT_EQ(r.status_of("P2"), outcome::fail);
}

TEST(MoeMutants, ExpertReadForARowThatDidNotSelectItIsCaughtByP1AndP2) {
  for (const auto ph : {phase::gate_up, phase::down}) {
    const auto r = ph == phase::gate_up
                       ? check(mutant_of<ops::moe::kernel<ops::moe::q4_k_layout, 3, order::lane_strided, phase::gate_up, policy,
                                                          row_one_reads_row_zeros_experts>>("moe.q4_k.r3.ls32.gate_up"))
                       : check(mutant_of<ops::moe::kernel<ops::moe::q8_0_layout, 16, order::lane_blocked, phase::down, policy,
                                                          row_one_reads_row_zeros_experts>>("moe.q8_0.r16.lb32.down"));
    EXPECT_EQ(r.status_of("P1"), outcome::fail);
    EXPECT_EQ(r.status_of("P2"), outcome::fail);
  }
}

// The unmutated instances built the same way pass: the checks above fail because of the mutation.
TEST(MoeMutants, UnmutatedControlsPass) {
  EXPECT_TRUE(check(mutant_of<ops::moe::kernel<ops::moe::q8_0_layout, 4, order::lane_strided, phase::gate_up, policy>>(
                        "moe.q8_0.r4.ls32.gate_up"))
                  .passed());
  EXPECT_TRUE(check(mutant_of<ops::moe::kernel<ops::moe::mxfp4_layout, 2, order::lane_strided, phase::down, policy>>(
                        "moe.mxfp4.r2.ls32.down"))
                  .passed());
}

}  // namespace
