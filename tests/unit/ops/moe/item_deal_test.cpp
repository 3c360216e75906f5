// The gate_up deal of work items to warps (include/ordo/ops/moe/item_deal.hpp): every item goes
// to exactly one warp in both deals, each round covers a contiguous range, and at DS4's tier-1
// shape (1024 shared items of about twice a routed item's cost, 6144 routed, 2112 warps) no warp
// carries more than 4 routed items' worth in the boustrophedon deal, where round-robin gives some 5.
#include "ordo/ops/moe/item_deal.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {

using ordo::ops::moe::dealt_item;

TEST(item_deal, every_item_once_and_rounds_contiguous) {
  for (int n : {1, 2, 7, 64, 2112})
    for (int items : {0, 1, 5, 100, 7168}) {
      std::vector<int> taken(static_cast<std::size_t>(items), 0);
      const int rounds = (items + n - 1) / n;
      for (int r = 0; r < rounds; ++r) {
        int lo = items, hi = -1;
        for (int w = 0; w < n; ++w) {
          const int it = dealt_item(r, w, n, n % 2 == 0);  // both deals
          ASSERT_GE(it, r * n);
          ASSERT_LT(it, (r + 1) * n);
          if (it < items) ++taken[static_cast<std::size_t>(it)], lo = std::min(lo, it), hi = std::max(hi, it);
        }
        if (hi >= 0) EXPECT_EQ(hi - lo + 1, std::min(n, items - r * n));
      }
      EXPECT_TRUE(std::all_of(taken.begin(), taken.end(), [](int t) { return t == 1; })) << n << " " << items;
    }
}

/// The costliest warp when `items` items (the first `heavy` cost 2, the rest 1) go to n warps by `deal`.
template <class Deal>
int worst_warp(int items, int heavy, int n, Deal deal) {
  int worst = 0;
  for (int w = 0; w < n; ++w) {
    int cost = 0;
    for (int r = 0;; ++r) {
      const int it = deal(r, w, n);
      if (it >= items) {
        if (r * n >= items) break;
        continue;  // a partial round this warp has no item in
      }
      cost += it < heavy ? 2 : 1;
    }
    worst = std::max(worst, cost);
  }
  return worst;
}

TEST(item_deal, ds4_tier_one_evens_what_round_robin_did_not) {
  const int groups = 1024, items = 7 * groups, warps = 264 * 8;
  EXPECT_EQ(worst_warp(items, groups, warps, [](int r, int w, int n) { return dealt_item(r, w, n); }), 4);
  EXPECT_EQ(worst_warp(items, groups, warps, [](int r, int w, int n) { return dealt_item(r, w, n, false); }), 5);
}

}  // namespace
