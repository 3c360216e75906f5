#include "tokenizer/bpe_merge.hpp"

#include <algorithm>
#include <limits>

namespace ordo::tokenizer {
namespace {
constexpr int32_t no_merge = std::numeric_limits<int32_t>::max();
}

void bpe_merge_scan(std::vector<int32_t>& sym, const merge_table& merges, bpe_scratch& s) {
  if (sym.size() < 2) return;
  // ranks[k]: rank of the pair (sym[k], sym[k+1]).
  auto rank_of = [&](std::size_t k) {
    const auto m = merges.find(sym[k], sym[k + 1]);
    return m.rank < 0 ? no_merge : m.rank;
  };
  s.ranks.resize(sym.size() - 1);
  for (std::size_t k = 0; k + 1 < sym.size(); ++k) s.ranks[k] = rank_of(k);
  while (!s.ranks.empty()) {
    // Strict < keeps the leftmost pair among equal ranks.
    std::size_t best = 0;
    for (std::size_t k = 1; k < s.ranks.size(); ++k)
      if (s.ranks[k] < s.ranks[best]) best = k;
    if (s.ranks[best] == no_merge) break;
    sym[best] = merges.find(sym[best], sym[best + 1]).result;
    sym.erase(sym.begin() + std::ptrdiff_t(best) + 1);
    s.ranks.erase(s.ranks.begin() + std::ptrdiff_t(best));
    if (best > 0) s.ranks[best - 1] = rank_of(best - 1);
    if (best < s.ranks.size()) s.ranks[best] = rank_of(best);
  }
}

void bpe_merge_heap(std::vector<int32_t>& sym, const merge_table& merges, bpe_scratch& s) {
  const int32_t n = static_cast<int32_t>(sym.size());
  if (n < 2) return;
  s.next.resize(std::size_t(n));
  s.prev.resize(std::size_t(n));
  for (int32_t i = 0; i < n; ++i) {
    s.next[std::size_t(i)] = i + 1 < n ? i + 1 : -1;
    s.prev[std::size_t(i)] = i - 1;
  }
  // Min-heap on (rank, pos) packed in one word (8 bytes an entry: the heap of a megabyte-long
  // piece is what misses the cache); pos is the node's original start, so equal ranks merge
  // leftmost first.
  auto later = [](uint64_t a, uint64_t b) { return a > b; };
  s.heap.clear();
  auto push = [&](int32_t pos) {
    const int32_t nx = s.next[std::size_t(pos)];
    if (nx < 0) return;
    const auto m = merges.find(sym[std::size_t(pos)], sym[std::size_t(nx)]);
    if (m.rank < 0) return;
    s.heap.push_back((uint64_t(uint32_t(m.rank)) << 32) | uint32_t(pos));
    std::push_heap(s.heap.begin(), s.heap.end(), later);
  };
  for (int32_t i = 0; i + 1 < n; ++i) push(i);
  constexpr int32_t dead = -2;
  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), later);
    const uint64_t e = s.heap.back();
    s.heap.pop_back();
    const int32_t rank = int32_t(e >> 32);
    const std::size_t p = std::size_t(uint32_t(e));
    // Stale entries: the pair now at p may differ from the one pushed (p was absorbed, grew, or
    // got a new right neighbour). A rank names exactly one (left, right) pair, so the entry still
    // stands iff the pair now at p has the same rank.
    if (sym[p] == dead) continue;
    const int32_t nx = s.next[p];
    if (nx < 0) continue;
    const auto m = merges.find(sym[p], sym[std::size_t(nx)]);
    if (m.rank != rank) continue;
    sym[p] = m.result;
    const int32_t nn = s.next[std::size_t(nx)];
    s.next[p] = nn;
    if (nn >= 0) s.prev[std::size_t(nn)] = int32_t(p);
    sym[std::size_t(nx)] = dead;
    s.next[std::size_t(nx)] = -1;
    if (s.prev[p] >= 0) push(s.prev[p]);
    push(int32_t(p));
  }
  std::size_t w = 0;
  for (int32_t i = 0; i >= 0; i = s.next[std::size_t(i)]) sym[w++] = sym[std::size_t(i)];
  sym.resize(w);
}

}  // namespace ordo::tokenizer
