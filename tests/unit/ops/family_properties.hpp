/// Pieces the op-family property tests share until the generic P1–P5 drivers of DESIGN §3a land:
/// the live row count (the full tier on half the cases, drawn deliberately), slot layouts, a
/// permutation of slots for P3, and one rapidcheck run per spec of a family's entry list.
#pragma once
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace ordo::test {

/// The live row count of a run at `tier`: the full tier on half the cases, else uniform in 1..tier.
inline int gen_rows(int tier) { return *rc::gen::oneOf(rc::gen::just(tier), rc::gen::inRange(1, tier + 1)); }

/// Pool rows 0..n-1 in slots 0..n-1.
inline std::vector<int> first_rows(int n) {
  std::vector<int> ids(static_cast<std::size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

/// P3's layouts: n slots drawn from a pool of n + 2 rows (repeats allowed), and a reversed, rotated
/// copy of them. slot_in_second(s) is where slot s of the first layout went.
struct slot_permutation {
  std::vector<int> first, second;
  std::size_t slot_in_second(std::size_t s) const {
    return std::size_t(std::find(second.begin(), second.end(), first[s]) - second.begin());
  }
};

inline slot_permutation gen_permutation(int n) {
  slot_permutation p;
  p.first = *rc::gen::container<std::vector<int>>(std::size_t(n), rc::gen::inRange(0, n + 2));
  p.second = p.first;
  std::reverse(p.second.begin(), p.second.end());
  std::rotate(p.second.begin(), p.second.begin() + *rc::gen::inRange(0, n), p.second.end());
  return p;
}

/// One rapidcheck run of `prop` per entry, labelled "<property> <spec name>" (RC_PARAMS from the
/// test preset sets the case count; a failure prints the spec and the seed).
template <class Entries, class Prop>
void check_every_spec(const Entries& entries, const char* property, Prop prop) {
  for (const auto& e : entries) {
    const std::string label = std::string(property) + " " + e.name;
    EXPECT_TRUE(rc::check(label, [&] { prop(e); })) << label;
  }
}

}  // namespace ordo::test
