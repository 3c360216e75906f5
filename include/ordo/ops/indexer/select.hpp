/// The indexer's exact top-k (ds4-model.md §3.4.8: top-512 of the scores over the visible
/// compressed rows, ties to the lowest index), ORDO_HD pieces for the GPU kernel and the CPU
/// executor. The order is ops::ranks_before (ops/ranking.hpp, shared with router): larger score first, then the lower id,
/// NaN below every number — a strict total order, so any combine tree picks the same winner.
///
/// Selection by threshold: round r finds the best candidate ranking strictly after round r−1's
/// winner; after k rounds the winner t is the k-th ranked, and the selection is every candidate
/// ranking at or before t, written in ascending id order (as the GPU keeps the ids for attention).
/// A lane owns the candidates lane, lane+32, …; a round combines the 32 lanes' proposals.
///
/// Hierarchical (long histories): stage 1 finds each block's own k-th and keeps the block's
/// candidates ranking at or before it (all of a block of <= k); stage 2 runs the rounds over those
/// survivors only. Every global top-k candidate survives its block (fewer than k in its block rank
/// before it), so stage 2's k-th is the flat k-th: the same threshold, the same selection.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/ops/ranking.hpp"
#include "ordo/ops/router/body.hpp"

namespace ordo::ops::indexer {

using router::candidate;

/// The empty candidate: ranks after everything, and "no bound" as a round's predecessor.
ORDO_HD ORDO_FORCEINLINE candidate no_candidate() { return candidate{0.0f, -1}; }

/// Whether a ranks at or before b (b empty: every candidate does).
ORDO_HD ORDO_FORCEINLINE bool at_or_before(candidate a, candidate b) { return b.id < 0 || !ranks_before(b, a); }

/// Candidate t of a set: ids[t] when the set is a list of ids, else t itself.
ORDO_HD ORDO_FORCEINLINE candidate member(const float* scores, const std::int32_t* ids, int t) {
  const int id = ids ? ids[t] : t;
  return candidate{scores[id], id};
}

/// Lane `lane`'s best member of the set (t = lane, lane+32, … < count) ranking strictly after
/// `prev` (prev empty: no bound).
ORDO_HD ORDO_FORCEINLINE candidate lane_next(const float* scores, const std::int32_t* ids, int count, int lane,
                                              candidate prev) {
  candidate best = no_candidate();
#pragma unroll 1
  for (int t = lane; t < count; t += 32) {
    const candidate c = member(scores, ids, t);
    if ((prev.id < 0 || ranks_before(prev, c)) && ranks_before(c, best)) best = c;
  }
  return best;
}

/// Rounds a set of `count` needs to find its k-th: min(k, count) (a set of <= k keeps everything).
ORDO_HD ORDO_FORCEINLINE int rounds_for(int count, int k) { return count < k ? count : k; }

/// Writes the members ranking at or before `kth` in ascending position order (ids ascending when
/// the set is) to out; returns how many.
ORDO_HD ORDO_FORCEINLINE int write_at_or_before(const float* scores, const std::int32_t* ids, int count, candidate kth,
                                                std::int32_t* out) {
  int n = 0;
#pragma unroll 1
  for (int t = 0; t < count; ++t) {
    const candidate c = member(scores, ids, t);
    if (at_or_before(c, kth)) out[n++] = c.id;
  }
  return n;
}

}  // namespace ordo::ops::indexer
