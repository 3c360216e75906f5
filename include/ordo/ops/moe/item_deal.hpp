/// How the streamed gate_up pass deals its work items to warps: in rounds of one item a warp,
/// the even rounds in warp order and, in the boustrophedon deal, the odd ones in reverse.
///
/// Why: the items come pass-major with the shared expert's pass first, and a shared item (Q8_0
/// rows) costs more than a routed one. Dealt round-robin, the warps that drew a shared item in the
/// first round were also the ones that drew an item of the partial last round (at DS4's tier 1:
/// 1024 shared and 6144 routed items over 2112 warps, so a shared item and 3 routed ones where the
/// average is 3.4 items); reversing every other round hands the last round's items to the warps
/// that drew no shared item. Each round still covers a contiguous range of items, so the warps
/// stream neighbouring rows of the same experts at a time (contiguous runs per warp, which balance
/// cost as well, measured slower: every warp in a different place of the weights). Where the
/// shared items are the cheaper ones (the q2 layout: a routed IQ2_XXS item costs more than a Q8_0
/// one), plain round-robin already hands the last round to the warps with a cheap item, and it
/// measured faster there (docs/PERFORMANCE.md, session 9). Which warp computes an item changes no
/// bits: an item's sums are its own.
#pragma once

#include "ordo/gpu/portability.hpp"

namespace ordo::ops::moe {

/// The item warp w (of n) takes in round r (boustrophedon: odd rounds reversed; else round-robin).
ORDO_HD constexpr int dealt_item(int round, int w, int n, bool boustrophedon = true) {
  return round * n + (boustrophedon && (round & 1) != 0 ? n - 1 - w : w);
}

}  // namespace ordo::ops::moe
