// Kept mutation checks (issue 8): each mutant is the shipped qmv kernel with one change, built
// here as its own template instance (a test-local order or kernel type, so no ODR clash with
// the shipped specs) and put into a copy of the real registry entry. The default driver run
// (the same RC_PARAMS as every property test) must report each one, through the property named.
#include <cmath>

#include "gtest_family.hpp"
#include "ordo/ops/cpu_executor.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using qmv_entry = registry::entry<ops::qmv::op>;
using policy = tune::preset::qmv::policy;

/// lane_blocked with its per-lane count rounded down instead of up: tail blocks are dropped.
struct lane_blocked_count_floor : order::lane_blocked {
  ORDO_HD static constexpr order::lane_range range(int lane, int nb, int w0, int w1) {
    const int per_lane = nb / order::lanes;  // MUTATION: (nb + lanes - 1) / lanes
    const int lo = lane * per_lane, hi = lo + per_lane < nb ? lo + per_lane : nb;
    return {lo > w0 ? lo : w0, hi < w1 ? hi : w1, 1};
  }
};

/// lane_strided that stops one block short of the row's end: each row's last block is dropped.
struct lane_strided_drop_last : order::lane_strided {
  ORDO_HD static constexpr order::lane_range range(int lane, int nb, int w0, int w1) {
    return {w0 + lane, w1 == nb ? nb - 1 : w1, order::lanes};  // MUTATION: end w1
  }
};

/// The R = 16 kernel whose last row's accumulate is perturbed (as an unrolled or contracted
/// last-row statement would be): only a full tier-16 run shows it.
template <class F, class Order>
struct r16_last_row_perturbed : ops::qmv::kernel<F, 16, Order, policy> {
  using base = ops::qmv::kernel<F, 16, Order, policy>;
  static void lane_phase(const ops::qmv::problem& p, long row, int lane, typename base::lane_state& s) {
    base::lane_phase(p, row, lane, s);
    if (p.rows < 16) return;
    const int nb = p.k / F::dot_elems;
    const auto* w = p.weights + std::size_t(row) * p.weight_row_bytes;
    const auto* x = reinterpret_cast<const typename F::activation::block*>(p.acts + 15 * p.act_row_bytes);
    const auto r = Order::range(lane, nb, 0, nb);
    float acc = 0.0f;
    for (int b = r.begin; b < r.end; b += r.step)  // MUTATION: acc + term → fma(term, 1 + 2^-23, acc)
      acc = std::fmaf(F::dot_block(reinterpret_cast<const typename F::block*>(w + std::size_t(b) * ops::qmv::dot_bytes<F>), x[b]),
                      1.0f + 0x1p-23f, acc);
    s.acc[15] = acc;
  }
};

/// A kernel that touches weight-row padding (adds 0 × its first float): harmless on tight rows,
/// NaN through the poisoned padding.
template <class F, int R, class Order>
struct reads_weight_padding : ops::qmv::kernel<F, R, Order, policy> {
  using base = ops::qmv::kernel<F, R, Order, policy>;
  static void lane_phase(const ops::qmv::problem& p, long row, int lane, typename base::lane_state& s) {
    base::lane_phase(p, row, lane, s);
    const std::size_t dense = std::size_t(p.k / F::dot_elems) * ops::qmv::dot_bytes<F>;
    if (lane == 0 && p.weight_row_bytes >= dense + sizeof(float)) {
      float pad;
      std::memcpy(&pad, p.weights + std::size_t(row) * p.weight_row_bytes + dense, sizeof pad);
      for (int i = 0; i < p.rows; ++i) s.acc[i] = s.acc[i] + 0.0f * pad;  // MUTATION
    }
  }
};

template <class Kernel>
qmv_entry mutant_of(std::string_view name) {
  qmv_entry e = registry::find<ops::qmv::op>(name);
  e.run_cpu = &ops::run_cpu<Kernel>;
  return e;
}

spec_report check(const qmv_entry& mutant) {
  auto r = check_spec(cpu_backend(), mutant, mutant_params(), property_set::cpu);
  std::printf("mutant %s\n", r.line().c_str());
  return r;
}

TEST(QmvMutants, LaneBlockedCountRoundedDownIsCaughtByReplayAndOracle) {
  for (const char* name : {"qmv.q8_0.r4.lb32", "qmv.mxfp4.r1.lb32"}) {
    const auto r = std::string_view(name).ends_with("r4.lb32")
                       ? check(mutant_of<ops::qmv::kernel<quant::q8_0, 4, lane_blocked_count_floor, policy>>(name))
                       : check(mutant_of<ops::qmv::kernel<quant::mxfp4, 1, lane_blocked_count_floor, policy>>(name));
    EXPECT_EQ(r.status_of("P2"), outcome::fail) << name;
    EXPECT_EQ(r.status_of("oracle"), outcome::fail) << name;
  }
}

TEST(QmvMutants, LaneStridedLastBlockDroppedIsCaughtByReplayAndOracle) {
  const auto r = check(mutant_of<ops::qmv::kernel<quant::q4_k, 8, lane_strided_drop_last, policy>>("qmv.q4_k.r8.ls32"));
  EXPECT_EQ(r.status_of("P2"), outcome::fail);
  EXPECT_EQ(r.status_of("oracle"), outcome::fail);
}

TEST(QmvMutants, OnlyTheR16AccumulatePerturbedIsCaughtByP1AndP2) {
  const auto r = check(mutant_of<r16_last_row_perturbed<quant::q8_0, order::lane_strided>>("qmv.q8_0.r16.ls32"));
  EXPECT_EQ(r.status_of("P1"), outcome::fail);
  EXPECT_EQ(r.status_of("P2"), outcome::fail);
}

TEST(QmvMutants, WeightPaddingReadIsCaughtByP4) {
  const auto r = check(mutant_of<reads_weight_padding<quant::f16, 2, order::lane_strided>>("qmv.f16.r2.ls32"));
  EXPECT_EQ(r.status_of("P4"), outcome::fail);
}

// The unmutated instances built the same way pass: the checks above fail because of the mutation.
TEST(QmvMutants, UnmutatedControlsPass) {
  EXPECT_TRUE(check(mutant_of<ops::qmv::kernel<quant::q8_0, 4, order::lane_blocked, policy>>("qmv.q8_0.r4.lb32")).passed());
  EXPECT_TRUE(check(mutant_of<ops::qmv::kernel<quant::q8_0, 16, order::lane_strided, policy>>("qmv.q8_0.r16.ls32")).passed());
}

}  // namespace
