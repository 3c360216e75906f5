/// Greedy byte-pair merging inside one pre-token: repeatedly merge the adjacent pair of lowest
/// merge rank, the leftmost one among equal ranks, until no adjacent pair has a merge. Two
/// implementations with the same result: a rank-array scan for short pieces (words: fast, no
/// heap) and a heap over a linked list for long pieces (long whitespace runs, base64), where the
/// scan would be quadratic. The tie order (rank, then start position) is that of the tokenizer's
/// JavaScript implementation (score = rank + start/length).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/merge_table.hpp"

namespace ordo::tokenizer {

struct bpe_scratch {
  std::vector<int32_t> ranks;
  std::vector<int32_t> next, prev;
  std::vector<uint64_t> heap;  // (rank << 32) | start position: one compare orders both
};

/// `symbols` holds the initial symbol ids (one per byte) and is rewritten to the merged ids.
void bpe_merge_scan(std::vector<int32_t>& symbols, const merge_table& merges, bpe_scratch& s);
void bpe_merge_heap(std::vector<int32_t>& symbols, const merge_table& merges, bpe_scratch& s);

/// Picks the implementation by length (both give the same ids).
inline void bpe_merge(std::vector<int32_t>& symbols, const merge_table& merges, bpe_scratch& s) {
  if (symbols.size() <= 48)
    bpe_merge_scan(symbols, merges, s);
  else
    bpe_merge_heap(symbols, merges, s);
}

}  // namespace ordo::tokenizer
