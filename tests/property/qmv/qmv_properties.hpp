/// The qmv properties P1–P4 as rapidcheck property bodies over any backend, so the CPU executor
/// (tests/property/qmv) and the GPU (tests/gpu/qmv) are held to the same statements. Call them
/// inside rc::check; they draw their own cases with rc::gen.
#pragma once
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <numeric>

#include "qmv_harness.hpp"

namespace ordo::test {

using registry::qmv_entry;
using registry::qmv_table;

/// Real DS4 reduction lengths (hidden 4096, expert width 2048, q LoRA 1024, head 512) mixed with
/// random ones, in dot blocks of the format.
inline int gen_blocks(int dot_elems) {
  const int ds4 = *rc::gen::element(4096, 2048, 1024, 512);
  const int real = std::max(1, ds4 / dot_elems);
  return *rc::gen::oneOf(rc::gen::just(real), rc::gen::inRange(1, 97));
}

inline qmv_case gen_case(const qmv_entry& e, int pool) {
  const int nb = gen_blocks(dot_elems_of(e.format));
  const int n_out = *rc::gen::inRange(1, 24);
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  return make_case(e.format, n_out, nb, pool, seed);
}

inline const qmv_entry& one_row_twin(const qmv_entry& e) { return ordo::registry::find_qmv(e.format, 1, e.order); }

/// P1 for one case: every slot of an n-row run equals the same pool row run alone at tier 1.
inline bool row_order_equivalent(const qmv_backend& be, const qmv_entry& e, const qmv_case& c, const std::vector<int>& ids,
                          const qmv_layout& layout) {
  const auto many = run_qmv(be, e, c, ids, layout);
  for (std::size_t s = 0; s < ids.size(); ++s) {
    const auto alone = run_qmv(be, one_row_twin(e), c, {ids[s]});
    if (!same_bits(many.rows[s], alone.rows[0])) return false;
  }
  return true;
}

/// P1: every slot of a K-row run has the bits of the same row run alone (tier 1).
inline void p1_row_order_equivalence(const qmv_backend& be, const qmv_entry& e) {
    const int n = *rc::gen::inRange(1, e.tier + 1);
    const auto c = gen_case(e, n);
    std::vector<int> ids(static_cast<std::size_t>(n));
    std::iota(ids.begin(), ids.end(), 0);
    RC_ASSERT(row_order_equivalent(be, e, c, ids, {}));
}

/// P2: the result equals the host replay of the Order (terms by dot_block, order::replay).
inline void p2_equals_host_replay(const qmv_backend& be, const qmv_entry& e) {
    const int n = *rc::gen::inRange(1, e.tier + 1);
    const auto c = gen_case(e, n);
    std::vector<int> ids(static_cast<std::size_t>(n));
    std::iota(ids.begin(), ids.end(), 0);
    const auto got = run_qmv(be, e, c, ids);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(got.rows[std::size_t(s)], replay_row(e, c, s)));
}

/// P3: permuting (and repeating) rows across slots permutes the outputs and nothing else.
inline void p3_permutation_invariance(const qmv_backend& be, const qmv_entry& e) {
    const int n = *rc::gen::inRange(1, e.tier + 1);
    const auto c = gen_case(e, n + 2);
    // n distinct pool rows (repeats allowed too: the same row in two slots), in a random order
    auto ids = *rc::gen::container<std::vector<int>>(std::size_t(n), rc::gen::inRange(0, n + 2));
    const auto a = run_qmv(be, e, c, ids);
    auto perm = ids;
    std::reverse(perm.begin(), perm.end());
    std::rotate(perm.begin(), perm.begin() + (*rc::gen::inRange(0, n)), perm.end());
    const auto b = run_qmv(be, e, c, perm);
    for (int s = 0; s < n; ++s) {
      const auto it = std::find(perm.begin(), perm.end(), ids[std::size_t(s)]);
      RC_ASSERT(same_bits(a.rows[std::size_t(s)], b.rows[std::size_t(it - perm.begin())]));
    }
}

/// P4: padded strides and NaN-poisoned unused rows never leak into outputs or get written.
inline void p4_tails_and_padding(const qmv_backend& be, const qmv_entry& e) {
    const int n = *rc::gen::inRange(1, e.tier + 1);
    const auto c = gen_case(e, n);
    std::vector<int> ids(static_cast<std::size_t>(n));
    std::iota(ids.begin(), ids.end(), 0);
    qmv_layout padded;
    padded.act_pad_bytes = std::size_t(*rc::gen::inRange(0, 5)) * 4;  // activation blocks stay 4-byte aligned
    padded.out_pad = std::size_t(*rc::gen::inRange(0, 9));
    padded.poison_unused_rows = true;
    const auto poisoned = run_qmv(be, e, c, ids, padded);
    RC_ASSERT(poisoned.padding_intact);
    qmv_layout clean;
    clean.poison_unused_rows = false;
    const auto tight = run_qmv(be, e, c, ids, clean);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(poisoned.rows[std::size_t(s)], tight.rows[std::size_t(s)]));
}

/// Runs one rapidcheck property per registry entry, reporting each failing spec by name.
template <class Prop>
inline void check_every_spec(const char* property, Prop prop) {
  for (const auto& e : qmv_table) {
    const std::string label = std::string(property) + " " + std::string(e.name.view());
    EXPECT_TRUE(rc::check(label, [&] { prop(e); })) << label;
  }
}

}  // namespace ordo::test
