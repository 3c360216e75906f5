// Kept mutation checks of attention's three reductions, each put into a copy of a real registry
// entry and run through the generic P2 driver (which must fail) plus a per-case exactness loop:
// one row's place in a chunk's den_c / acc_c sums, the chunk combine order, and the q·k lane
// split. Each mutant must be flagged on exactly the cases where the independent replay says the
// mutation changes a bit, and that must be most cases.
#include <algorithm>
#include <cstdio>

#include "gtest_family.hpp"
#include "ordo/ops/cpu_executor.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using ops::attention::schedule;
using ops::attention::visibility;
using H = harness<ops::attention::op>;
using attention_entry = registry::entry<ops::attention::op>;

constexpr const char* reordered_spec = "attention.r4.kv64.general.split";

/// One row's place in its chunk's sums: the first two visible entries swapped (MUTATION).
void swap_first_two_visible(std::vector<std::int32_t>& list, int) {
  auto first = std::find_if(list.begin(), list.end(), [](std::int32_t e) { return e >= 0; });
  if (first == list.end()) return;
  auto second = std::find_if(first + 1, list.end(), [](std::int32_t e) { return e >= 0; });
  if (second != list.end()) std::iter_swap(first, second);
}

/// The chunk combine order: chunk 0 moved behind the others, each chunk's own sums unchanged
/// (MUTATION). (Swapping chunks 0 and 1 alone would be invisible in acc: +0 + a0 + a1 == +0 + a1 + a0.)
void chunk_zero_last(std::vector<std::int32_t>& list, int chunk) {
  if (int(list.size()) > chunk) std::rotate(list.begin(), list.begin() + chunk, list.end());
}

using reorder_fn = void (*)(std::vector<std::int32_t>&, int chunk);

/// The real entry run on every row's list reordered by Reorder: the sums meet the same terms in another order.
template <reorder_fn Reorder>
void reordered_run(const ops::attention::problem& p) {
  const auto& real = registry::find<ops::attention::op>(reordered_spec);
  std::vector<std::int32_t> gather(p.gather, p.gather + std::size_t(p.rows) * p.gather_stride);
  for (int i = 0; i < p.rows; ++i) {
    const auto begin = gather.begin() + std::ptrdiff_t(std::size_t(i) * p.gather_stride);
    std::vector<std::int32_t> list(begin, begin + p.n_listed[i]);
    Reorder(list, real.info.chunk);
    std::copy(list.begin(), list.end(), begin);
  }
  auto q = p;
  q.gather = gather.data();
  real.run_cpu(q);
}

/// An Order whose q·k is lane-blocked instead of ls32, the chunking unchanged (MUTATION).
struct blocked_dot_order {
  static constexpr int chunk = 64;
  using dot_order = order::lane_blocked;
  static constexpr std::string_view name = "mutant";
};

attention_entry mutant_of(const char* name, void (*run)(const ops::attention::problem&)) {
  attention_entry e = registry::find<ops::attention::op>(name);
  e.run_cpu = run;
  return e;
}

bool equals_replay(const attention_entry& e, const H::data& d, const std::vector<int>& ids) {
  const auto got = H::run(cpu_backend(), e, d, ids, H::tight_layout());
  if (!got.padding_intact) return false;
  for (std::size_t s = 0; s < ids.size(); ++s)
    if (!same_bits(got.rows[s], H::replay(e, d, ids[s]))) return false;
  return true;
}

/// Four rows of exactly three whole kv64 chunks each (the drawn entries, then more of the table).
H::data three_chunk_case(std::uint64_t seed) {
  auto d = H::make(2, 80, 300, 4, 200, true, seed);
  for (auto& list : d.lists) {
    const std::size_t drawn = std::min<std::size_t>(list.size(), 3 * 64);
    list.resize(3 * 64);
    for (std::size_t j = drawn; j < list.size(); ++j) list[j] = std::int32_t((j * 37 + seed) % 300);
  }
  return d;
}

template <reorder_fn Reorder>
void check_reorder_mutant(const char* what) {
  const auto bad = mutant_of(reordered_spec, &reordered_run<Reorder>);
  const auto p2 = drivers<ops::attention::op>::p2(cpu_backend(), bad, mutant_params());
  std::printf("mutant attention (%s): P2 %s\n", what, p2.status == outcome::fail ? "fails (caught)" : "passes (NOT caught)");
  EXPECT_EQ(p2.status, outcome::fail) << what;
  const auto& good = registry::find<ops::attention::op>(reordered_spec);
  int observable = 0, caught = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const auto d = three_chunk_case(seed);
    bool differs = false;
    for (int id = 0; id < 4; ++id) {
      auto reordered = d;
      Reorder(reordered.lists[std::size_t(id)], good.info.chunk);
      differs |= !same_bits(H::replay(good, d, id), H::replay(good, reordered, id));
    }
    EXPECT_TRUE(equals_replay(good, d, {0, 1, 2, 3}));
    const bool flagged = !equals_replay(bad, d, {0, 1, 2, 3});
    observable += differs;
    caught += differs && flagged;
    EXPECT_EQ(flagged, differs) << what << " seed " << seed;
  }
  std::printf("mutation attention (%s): observable on %d of 12 cases, caught %d\n", what, observable, caught);
  EXPECT_GE(observable, 10);
  EXPECT_EQ(caught, observable);
}

TEST(AttentionMutants, OneRowOutOfOrderIsCaughtByP2) { check_reorder_mutant<&swap_first_two_visible>("row order"); }

TEST(AttentionMutants, ChunkCombineOrderIsCaughtByP2) { check_reorder_mutant<&chunk_zero_last>("chunk order"); }

TEST(AttentionMutants, DotLaneSplitIsCaughtByP2) {
  const auto bad = mutant_of("attention.r2.kv64.general.whole",
                             &ops::run_cpu<ops::attention::kernel<2, blocked_dot_order, visibility::general, schedule::whole>>);
  const auto p2 = drivers<ops::attention::op>::p2(cpu_backend(), bad, mutant_params());
  EXPECT_EQ(p2.status, outcome::fail);
  const auto& good = registry::find<ops::attention::op>("attention.r2.kv64.general.whole");
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const auto d = H::make(2, 200, 100, 2, 150, true, seed);
    EXPECT_TRUE(equals_replay(good, d, {0, 1}));
    caught += !equals_replay(bad, d, {0, 1});
  }
  std::printf("mutation attention (q.k lane split): caught %d of 12\n", caught);
  EXPECT_GE(caught, 11);
}

TEST(AttentionMutants, UnmutatedControlsPassP2) {
  for (const char* name : {reordered_spec, "attention.r2.kv64.general.whole"})
    EXPECT_EQ(drivers<ops::attention::op>::p2(cpu_backend(), registry::find<ops::attention::op>(name), mutant_params()).status,
              outcome::pass)
        << name;
}

}  // namespace
