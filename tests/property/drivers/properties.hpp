/// The generic property drivers of DESIGN §7 over any registry entry of any op family, given the
/// family's test harness (tests/property/<op>/harness.hpp):
///   P1 row-order equivalence  every slot of an n-row run has the bits of the same row run at
///                             tier 1 (a tier-1 entry is compared with the largest tier instead,
///                             its row in a random slot among random neighbours)
///   P2 host replay            every slot equals the family's host replay (independent code)
///   P3 slot permutation       rotating (and repeating) rows across slots moves only the outputs;
///                             n >= 2 always (not applicable to a tier-1 entry, nor where a slot
///                             is a position: H::rows_are_positions)
///   P4 tails and padding      padded strides everywhere, NaN-poisoned padding and unused rows,
///                             sentinel-filled output padding: same bits as tight packing, no
///                             sentinel overwritten
///   P5 non-vacuity            an entry differing only in its Order gives different bits on at
///                             least a quarter of the outputs (tails, the entry's own tier; a
///                             harness may state a lower bar, H::p5_min_differing, with its reason)
///   oracle                    every output within a derived float bound of a double-precision
///                             reference (the harness documents its bound)
///   E2 backend equivalence    the device's bits == the CPU executor's (GPU drivers only)
/// Draws: every spec gets its own seed (run seed ^ hash(spec, property)); sizes are drawn
/// uniformly (rc::gen::resize(100, …), not size-biased), and even-numbered cases use the full
/// tier, so the first case of every spec at every tier runs all R rows. A failure reports
/// rapidcheck's shrunk counterexample (the drawn values in order: case index, then the
/// property's draws) and the seeds: `ordo_props SPEC --seed RUN_SEED` replays it.
#pragma once
#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "backend.hpp"
#include "ordo/registry/table.hpp"

namespace ordo::test {

struct run_result {
  std::vector<std::vector<std::byte>> rows;  // one per requested slot
  bool padding_intact = true;                // output padding and tail rows still hold the sentinel
};

struct params {
  std::uint64_t seed = 0;  // run seed; each (spec, property) derives its own
  int cases = 40;          // rapidcheck cases per (spec, property)
  bool shrink = true;      // shrink a failure's counterexample to a minimal one
};

/// The run parameters from RC_PARAMS (seed, max_success), as the test presets set them.
inline params default_params() {
  const auto& tp = rc::detail::configuration().testParams;
  return {tp.seed, tp.maxSuccess, !tp.disableShrinking};
}

/// The run parameters of a mutation check: default_params() without shrinking. A mutant's failure
/// is the expected outcome, so a minimal counterexample is time spent on nothing: rapidcheck's
/// shrinking of a caught mutant ran past 20 s in about 4 runs of 100 (the indexer's tie-rule
/// mutant, session 20).
inline params mutant_params() {
  params p = default_params();
  p.shrink = false;
  return p;
}

enum class outcome { pass, fail, not_applicable };

struct property_result {
  std::string property;
  outcome status = outcome::pass;
  std::string message;  // failure: rapidcheck's description and minimal counterexample; n/a: why
};

struct spec_report {
  std::string spec;
  std::vector<property_result> results;
  bool passed() const {
    return std::none_of(results.begin(), results.end(), [](const auto& r) { return r.status == outcome::fail; });
  }
  const property_result* find(std::string_view property) const {
    for (const auto& r : results)
      if (r.property == property) return &r;
    return nullptr;
  }
  /// The outcome of one property; not_applicable when the spec did not run it (mutation checks
  /// assert a mutant's P1/P2/oracle outcome with it).
  outcome status_of(std::string_view property) const {
    const auto* p = find(property);
    return p ? p->status : outcome::not_applicable;
  }
  /// "qmv.q8_0.r4.ls32 pass (P1 P2 P3 P4 P5 oracle)" or "… FAIL P2: <why> | …".
  std::string line() const {
    std::string s = spec + (passed() ? " pass (" : " FAIL ");
    if (passed()) {
      for (const auto& r : results)
        s += r.property + (r.status == outcome::not_applicable ? "=n/a " : " ");
      if (s.back() == ' ') s.pop_back();
      return s + ")";
    }
    for (const auto& r : results)
      if (r.status == outcome::fail) s += r.property + ": " + r.message + " | ";
    return s.substr(0, s.size() - 3);
  }
};

namespace detail {

inline std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ std::uint8_t(c)) * 0x100000001b3ull;
  return h;
}

inline std::uint64_t property_seed(const params& p, std::string_view spec, std::string_view property) {
  return p.seed ^ fnv1a(std::string(spec) + "/" + std::string(property));
}

/// The index of the current case, recovered from rapidcheck's size (which it spreads evenly over
/// 0..100 across the cases and keeps fixed while shrinking, so a replayed counterexample draws
/// the same shape class; a counter would not). Beyond 101 cases, sizes repeat: the index cycles.
inline int current_case(int cases) {
  const int size = *rc::Gen<int>([](const rc::Random&, int sz) { return rc::shrinkable::just(sz); });
  return cases > 1 && cases <= 101 ? int(double(size) * (cases - 1) / 100.0 + 0.5) : size;
}

/// Runs body(case_index) as one rapidcheck property with the (spec, property) seed.
template <class Body>
property_result run_property(const params& p, std::string_view spec, std::string property, Body body) {
  rc::detail::TestParams tp = rc::detail::configuration().testParams;
  tp.seed = property_seed(p, spec, property);
  tp.maxSuccess = p.cases;
  tp.disableShrinking = !p.shrink;
  rc::detail::TestMetadata md;
  md.id = md.description = std::string(spec) + " " + property;
  const int cases = p.cases;
  const auto result = rc::detail::checkProperty(rc::detail::toProperty([&] { body(current_case(cases)); }), md, tp);
  property_result r{std::move(property)};
  if (result.template is<rc::detail::SuccessResult>()) return r;
  r.status = outcome::fail;
  std::ostringstream os;
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    os << failure.description << "; counterexample:";
    for (const auto& [type, value] : failure.counterExample) os << " " << value << ";";
  } else {
    rc::detail::printResultMessage(result, os);
  }
  os << " (run seed " << p.seed << ", property seed " << tp.seed << ")";
  r.message = os.str();
  for (char& c : r.message)
    if (c == '\n') c = ' ';
  return r;
}

/// A uniform (not size-biased) integer in [lo, hi], shown in counterexamples.
inline int uniform(int lo, int hi) { return *rc::gen::resize(100, rc::gen::inRange(lo, hi + 1)); }

/// Rows for case `c` of an entry holding at most `max` rows: the full tier on even cases.
inline int draw_rows(int c, int max, int at_least = 1) {
  return c % 2 == 0 ? *rc::gen::just(max) : uniform(std::min(at_least, max), max);
}

inline std::vector<int> iota(int n, int from = 0) {
  std::vector<int> v(std::size_t(n > 0 ? n : 0));
  std::iota(v.begin(), v.end(), from);
  return v;
}

/// The entry of the same family with the same axes but tier r (nullptr if not compiled).
template <class Op>
const registry::entry<Op>* with_tier(const registry::entry<Op>& e, int r) {
  for (const auto& o : registry::table<Op>) {
    if (o.tier != r || o.axis_count != e.axis_count) continue;
    bool same = true;
    for (std::size_t i = 0; i < e.axis_count; ++i)
      same = same && (o.axes[i].view() == e.axes[i].view() || (e.tier && o.axes[i].view().starts_with("r") &&
                                                                e.axes[i].view() == "r" + std::to_string(e.tier)));
    if (same) return &o;
  }
  return nullptr;
}

/// The largest tier of the entries that share e's other axes.
template <class Op>
int largest_tier(const registry::entry<Op>& e) {
  int best = e.tier;
  for (const auto& o : registry::table<Op>)
    if (const auto* back = with_tier(o, e.tier); o.tier > best && back && back->name.view() == e.name.view()) best = o.tier;
  return best;
}

/// Entries differing from e only in axis `axis`.
template <class Op>
std::vector<const registry::entry<Op>*> axis_siblings(const registry::entry<Op>& e, int axis) {
  std::vector<const registry::entry<Op>*> out;
  for (const auto& o : registry::table<Op>) {
    if (o.name.view() == e.name.view() || o.axis_count != e.axis_count) continue;
    bool same = true;
    for (std::size_t i = 0; i < e.axis_count; ++i)
      if (int(i) != axis) same = same && o.axes[i].view() == e.axes[i].view();
    if (same) out.push_back(&o);
  }
  return out;
}

}  // namespace detail

template <class Op>
struct drivers {
  using H = harness<Op>;
  using entry = registry::entry<Op>;

  static int max_rows(const entry& e) { return e.tier ? e.tier : H::untiered_rows; }

  /// A harness may declare `rows_are_positions = true`: slot s of a run is position first + s of
  /// one sequence, and what a row computes depends on its position (compressor.store's APE row),
  /// so pool row i is always run at slot i − ids[0] of a run of consecutive pool rows. P1 then
  /// compares slot s of a full pass with pool row s run alone at its own position, and P3 (rows
  /// moved across slots) does not apply.
  static constexpr bool rows_are_positions = [] {
    if constexpr (requires { H::rows_are_positions; }) return bool(H::rows_are_positions);
    else return false;
  }();

  static property_result p1(const backend& be, const entry& e, const params& p) {
    if (e.tier == 1 && detail::largest_tier(e) == 1)
      return {"P1", outcome::not_applicable, "tier 1 is the only tier of this spec"};
    return detail::run_property(p, e.name.view(), "P1", [&](int c) {
      if (e.tier == 1) {
        // tier 1: the row alone must equal the same row at the largest tier, in any slot (a
        // family whose slots are positions keeps every row at its own slot)
        const entry* big = detail::with_tier(e, detail::largest_tier(e));
        const int slot = detail::uniform(0, big->tier - 1);
        const auto d = H::draw(e, big->tier, c);
        auto ids = detail::iota(big->tier);
        if (!rows_are_positions) std::swap(ids[0], ids[std::size_t(slot)]);
        const int alone_row = rows_are_positions ? slot : 0;
        const auto many = H::run(be, *big, d, ids, H::tight_layout());
        const auto alone = H::run(be, e, d, {alone_row}, H::tight_layout());
        RC_ASSERT(same_bits(many.rows[std::size_t(slot)], alone.rows[0]));
        return;
      }
      const int n = detail::draw_rows(c, max_rows(e));
      const auto d = H::draw(e, n, c);
      const auto many = H::run(be, e, d, detail::iota(n), H::tight_layout());
      const entry& one = e.tier ? *detail::with_tier(e, 1) : e;
      for (int s = 0; s < n; ++s) {
        const auto alone = H::run(be, one, d, {s}, H::tight_layout());
        RC_ASSERT(same_bits(many.rows[std::size_t(s)], alone.rows[0]));
      }
    });
  }

  static property_result p2(const backend& be, const entry& e, const params& p) {
    return detail::run_property(p, e.name.view(), "P2", [&](int c) {
      const int n = detail::draw_rows(c, max_rows(e));
      const auto d = H::draw(e, n, c);
      const auto got = H::run(be, e, d, detail::iota(n), H::tight_layout());
      for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(got.rows[std::size_t(s)], H::replay(e, d, s)));
    });
  }

  static property_result p3(const backend& be, const entry& e, const params& p) {
    if (max_rows(e) < 2) return {"P3", outcome::not_applicable, "one slot: nothing to permute"};
    if (rows_are_positions) return {"P3", outcome::not_applicable, "a slot is a position of the sequence: a row cannot move"};
    return detail::run_property(p, e.name.view(), "P3", [&](int c) {
      const int n = detail::draw_rows(c, max_rows(e), 2);
      const int pool = n + 2;
      const auto d = H::draw(e, pool, c);
      std::vector<int> ids(static_cast<std::size_t>(n));
      for (auto& id : ids) id = detail::uniform(0, pool - 1);  // repeats allowed: one row in two slots
      ids[1] = (ids[0] + detail::uniform(1, pool - 1)) % pool;  // at least two different rows
      const int r = detail::uniform(1, n - 1);                   // a rotation that moves every slot
      std::vector<int> rotated(ids.size());
      for (int j = 0; j < n; ++j) rotated[std::size_t(j)] = ids[std::size_t((j + r) % n)];
      const auto a = H::run(be, e, d, ids, H::tight_layout());
      const auto b = H::run(be, e, d, rotated, H::tight_layout());
      for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(a.rows[std::size_t(s)], b.rows[std::size_t((s - r + n) % n)]));
    });
  }

  static property_result p4(const backend& be, const entry& e, const params& p) {
    return detail::run_property(p, e.name.view(), "P4", [&](int c) {
      const int n = detail::draw_rows(c, max_rows(e));
      const auto d = H::draw(e, n, c);
      const auto layout = H::draw_padded_layout();
      const auto padded = H::run(be, e, d, detail::iota(n), layout);
      const auto tight = H::run(be, e, d, detail::iota(n), H::tight_layout());
      RC_ASSERT(padded.padding_intact);
      RC_ASSERT(tight.padding_intact);
      for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(padded.rows[std::size_t(s)], tight.rows[std::size_t(s)]));
    });
  }

  static property_result p5(const backend& be, const entry& e, const params& p) {
    if constexpr (H::order_axis < 0) {
      return {"P5", outcome::not_applicable, "the family has no order axis"};
    } else {
      const auto others = detail::axis_siblings(e, H::order_axis);
      if (others.empty()) return {"P5", outcome::not_applicable, "no other order of this spec is compiled"};
      property_result r{"P5"};
      // A quarter of the outputs, unless the harness states (and justifies) its family's own bar.
      double min_differing = 0.25;
      if constexpr (requires { H::p5_min_differing; }) min_differing = H::p5_min_differing;
      for (const entry* o : others) {
        long differing = 0, total = 0;
        for (int c = 0; c < 12; ++c) {
          const auto d = H::tail_data(e, max_rows(e), detail::property_seed(p, e.name.view(), "P5") + std::uint64_t(c));
          const auto a = H::run(be, e, d, detail::iota(max_rows(e)), H::tight_layout());
          const auto b = H::run(be, *o, d, detail::iota(max_rows(e)), H::tight_layout());
          for (std::size_t s = 0; s < a.rows.size(); ++s) {
            const auto da = H::outputs(a.rows[s]), db = H::outputs(b.rows[s]);
            for (std::size_t j = 0; j < da.size(); ++j, ++total) differing += da[j] != db[j];
          }
        }
        if (double(differing) < min_differing * double(total)) {
          r.status = outcome::fail;
          r.message += std::string(o->name.view()) + " differs in only " + std::to_string(differing) + " of " +
                       std::to_string(total) + " outputs; ";
        }
      }
      return r;
    }
  }

  static property_result oracle(const backend& be, const entry& e, const params& p) {
    return detail::run_property(p, e.name.view(), "oracle", [&](int c) {
      const int n = detail::draw_rows(c, max_rows(e));
      const auto d = H::draw(e, n, c);
      const auto got = H::run(be, e, d, detail::iota(n), H::tight_layout());
      for (int s = 0; s < n; ++s) {
        const std::string why = H::oracle(e, d, s, got.rows[std::size_t(s)]);
        if (!why.empty()) RC_FAIL("slot " + std::to_string(s) + ": " + why);
      }
    });
  }

  /// E2: the device backend's bits (and untouched padding) equal the CPU executor's.
  static property_result e2(const backend& device, const entry& e, const params& p) {
    return detail::run_property(p, e.name.view(), "E2", [&](int c) {
      const int n = detail::draw_rows(c, max_rows(e));
      const auto d = H::draw(e, n, c);
      const auto layout = c % 3 == 2 ? H::tight_layout() : H::draw_padded_layout();
      const auto on_cpu = H::run(cpu_backend(), e, d, detail::iota(n), layout);
      const auto on_dev = H::run(device, e, d, detail::iota(n), layout);
      RC_ASSERT(on_dev.padding_intact);
      for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(on_cpu.rows[std::size_t(s)], on_dev.rows[std::size_t(s)]));
    });
  }
};

/// Which properties a run checks: the CPU set, or the device set (E2 + P1–P4 on the device).
enum class property_set { cpu, device };

template <class Op>
spec_report check_spec(const backend& be, const registry::entry<Op>& e, const params& p, property_set set) {
  using D = drivers<Op>;
  spec_report rep{std::string(e.name.view()), {}};
  if (set == property_set::device) rep.results.push_back(D::e2(be, e, p));
  rep.results.push_back(D::p1(be, e, p));
  rep.results.push_back(D::p2(be, e, p));
  rep.results.push_back(D::p3(be, e, p));
  rep.results.push_back(D::p4(be, e, p));
  if (set == property_set::cpu) {
    rep.results.push_back(D::p5(be, e, p));
    rep.results.push_back(D::oracle(be, e, p));
  }
  return rep;
}

}  // namespace ordo::test
