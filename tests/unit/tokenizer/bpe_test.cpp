// BPE merging: hand-worked cases on a tiny vocabulary (rank order, leftmost tie-break), and a
// property that both merge implementations equal a naive string-based reference on random
// vocabularies and texts (long texts take the heap path).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tokenizer/bpe_merge.hpp"
#include "tokenizer/bpe_tokenizer.hpp"
#include "tokenizer/byte_level.hpp"

using namespace ordo::tokenizer;

namespace {

/// Byte tokens 0..255, then "ab" 256, "bc" 257, "abc" 258, "aa" 259; merges by rank:
/// 0 "b c", 1 "a b", 2 "a a", 3 "ab c".
vocab tiny_vocab() {
  vocab v;
  for (int b = 0; b < 256; ++b) {
    v.tokens.push_back(byte_symbols()[std::size_t(b)]);
    v.types.push_back(token_type::normal);
  }
  for (const char* t : {"ab", "bc", "abc", "aa"}) {
    v.tokens.emplace_back(t);
    v.types.push_back(token_type::normal);
  }
  v.merges = {"b c", "a b", "a a", "ab c"};
  return v;
}

}  // namespace

TEST(bpe, lowest_rank_first) {
  const bpe_tokenizer tok(tiny_vocab());
  // (b,c) rank 0 beats (a,b) rank 1; then (a,bc) has no merge.
  EXPECT_EQ(tok.encode("abc", special_tokens::plain), (std::vector<int32_t>{'a', 257}));
  EXPECT_EQ(tok.encode("ab", special_tokens::plain), (std::vector<int32_t>{256}));
  EXPECT_EQ(tok.encode("xyz", special_tokens::plain), (std::vector<int32_t>{'x', 'y', 'z'}));
}

TEST(bpe, equal_ranks_merge_leftmost_first) {
  const bpe_tokenizer tok(tiny_vocab());
  // (a,a) at 0 and at 1: the left one merges, leaving "aa" "a".
  EXPECT_EQ(tok.encode("aaa", special_tokens::plain), (std::vector<int32_t>{259, 'a'}));
  EXPECT_EQ(tok.encode("abab", special_tokens::plain), (std::vector<int32_t>{256, 256}));
}

TEST(bpe, pieces_are_merged_separately) {
  const bpe_tokenizer tok(tiny_vocab());
  // "a b" is two pieces ("a", " b"): no merge across the boundary.
  EXPECT_EQ(tok.encode("a b", special_tokens::plain), (std::vector<int32_t>{'a', ' ', 'b'}));
}

namespace {

struct random_vocab {
  std::vector<std::string> tokens;  // id → text (bytes 'a'..'d' first)
  std::vector<std::pair<int32_t, int32_t>> merges;  // rank → (left, right)
};

random_vocab gen_vocab() {
  random_vocab v{{"a", "b", "c", "d"}, {}};
  const int n = *rc::gen::inRange(0, 40);
  for (int i = 0; i < n; ++i) {
    const auto l = *rc::gen::inRange<int32_t>(0, int32_t(v.tokens.size()));
    const auto r = *rc::gen::inRange<int32_t>(0, int32_t(v.tokens.size()));
    const std::string joined = v.tokens[std::size_t(l)] + v.tokens[std::size_t(r)];
    bool seen = false;
    for (const auto& t : v.tokens) seen |= t == joined;
    if (seen) continue;
    v.tokens.push_back(joined);
    v.merges.emplace_back(l, r);
  }
  return v;
}

/// The textbook algorithm on strings: merge the adjacent pair of lowest rank, leftmost on ties.
std::vector<std::string> naive_bpe(const random_vocab& v, const std::string& text) {
  std::map<std::pair<std::string, std::string>, std::size_t> rank;
  for (std::size_t r = 0; r < v.merges.size(); ++r)
    rank.emplace(std::pair{v.tokens[std::size_t(v.merges[r].first)], v.tokens[std::size_t(v.merges[r].second)]}, r);
  std::vector<std::string> w;
  for (char c : text) w.emplace_back(1, c);
  for (;;) {
    std::size_t best = w.size(), best_rank = SIZE_MAX;
    for (std::size_t k = 0; k + 1 < w.size(); ++k) {
      const auto it = rank.find({w[k], w[k + 1]});
      if (it != rank.end() && it->second < best_rank) best = k, best_rank = it->second;
    }
    if (best == w.size()) return w;
    w[best] += w[best + 1];
    w.erase(w.begin() + std::ptrdiff_t(best) + 1);
  }
}

}  // namespace

RC_GTEST_PROP(bpe, scan_and_heap_equal_the_naive_reference, ()) {
  const random_vocab v = gen_vocab();
  merge_table table;
  for (std::size_t r = 0; r < v.merges.size(); ++r) {
    const auto [l, rr] = v.merges[r];
    const std::string joined = v.tokens[std::size_t(l)] + v.tokens[std::size_t(rr)];
    int32_t id = 0;
    while (v.tokens[std::size_t(id)] != joined) ++id;
    table.insert(l, rr, int32_t(r), id);
  }
  const std::string text = *rc::gen::container<std::string>(rc::gen::element('a', 'b', 'c', 'd'));
  std::vector<int32_t> init;
  for (char c : text) init.push_back(c - 'a');
  bpe_scratch s;
  auto scan = init, heap = init;
  bpe_merge_scan(scan, table, s);
  bpe_merge_heap(heap, table, s);
  std::vector<std::string> scan_text, heap_text;
  for (int32_t id : scan) scan_text.push_back(v.tokens[std::size_t(id)]);
  for (int32_t id : heap) heap_text.push_back(v.tokens[std::size_t(id)]);
  const auto want = naive_bpe(v, text);
  RC_ASSERT(scan_text == want);
  RC_ASSERT(heap_text == want);
}
