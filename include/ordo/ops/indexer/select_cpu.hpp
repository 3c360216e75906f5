/// The CPU executor of the indexer's top-k (select.hpp): each round, lanes 0..31 propose in turn
/// and the best proposal wins (their order cannot matter: ranks_before is a strict total order).
#pragma once
#include <cstdint>
#include <vector>

#include "ordo/ops/indexer/select.hpp"

namespace ordo::ops::indexer {

/// The k-th ranked member of a set of `count` (ids: nullptr for 0..count-1); empty when count <= k
/// would keep everything (then every member is at or before it).
inline candidate kth_of(const float* scores, const std::int32_t* ids, int count, int k) {
  if (count <= k) return no_candidate();
  candidate prev = no_candidate();
  for (int r = 0; r < rounds_for(count, k); ++r) {
    candidate best = no_candidate();
    for (int lane = 0; lane < 32; ++lane) {
      const candidate c = lane_next(scores, ids, count, lane, prev);
      if (ranks_before(c, best)) best = c;
    }
    prev = best;
  }
  return prev;
}

/// Flat top-k of scores[0..count): the selected ids ascending.
inline std::vector<std::int32_t> select_flat(const float* scores, int count, int k) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(rounds_for(count, k)));
  out.resize(std::size_t(write_at_or_before(scores, nullptr, count, kth_of(scores, nullptr, count, k), out.data())));
  return out;
}

/// Hierarchical top-k with blocks of `block` ids: each block's survivors (ascending), then the
/// rounds over the survivors; the selected ids ascending, the flat selection.
inline std::vector<std::int32_t> select_hierarchical(const float* scores, int count, int k, int block) {
  std::vector<std::int32_t> survivors, ids;
  for (int b0 = 0; b0 < count; b0 += block) {
    const int n = count - b0 < block ? count - b0 : block;
    ids.resize(std::size_t(n));
    for (int t = 0; t < n; ++t) ids[std::size_t(t)] = b0 + t;
    std::vector<std::int32_t> kept(std::size_t(rounds_for(n, k)));
    kept.resize(std::size_t(write_at_or_before(scores, ids.data(), n, kth_of(scores, ids.data(), n, k), kept.data())));
    survivors.insert(survivors.end(), kept.begin(), kept.end());
  }
  const int m = int(survivors.size());
  std::vector<std::int32_t> out(std::size_t(rounds_for(m, k)));
  out.resize(std::size_t(write_at_or_before(scores, survivors.data(), m, kth_of(scores, survivors.data(), m, k), out.data())));
  return out;
}

}  // namespace ordo::ops::indexer
