/// Hash table from a pair of token ids (left, right) to the merge's rank and the merged token's id.
/// Open addressing with linear probing over a power-of-two array: one multiply and usually one
/// cache line per lookup, which is what the BPE inner loop needs.
#pragma once
#include <cstdint>
#include <vector>

namespace ordo::tokenizer {

class merge_table {
 public:
  struct merge {
    int32_t rank = -1;    // -1: no such merge
    int32_t result = -1;  // id of left+right
  };

  explicit merge_table(std::size_t expected = 0);

  /// Adds (left, right) unless present (the first, lowest rank wins). Returns false if present.
  bool insert(int32_t left, int32_t right, int32_t rank, int32_t result);

  merge find(int32_t left, int32_t right) const {
    const uint64_t key = pack(left, right);
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      const entry& e = entries_[i];
      if (e.key == key) return e.value;
      if (e.key == empty) return {};
    }
  }

  std::size_t size() const { return size_; }

 private:
  static constexpr uint64_t empty = ~uint64_t{0};
  struct entry {
    uint64_t key = empty;
    merge value;
  };
  static uint64_t pack(int32_t l, int32_t r) {
    return (uint64_t(uint32_t(l)) << 32) | uint32_t(r);
  }
  std::size_t slot(uint64_t key) const {
    return std::size_t((key * 0x9E3779B97F4A7C15ull) >> 32) & mask_;
  }
  void grow();

  std::vector<entry> entries_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace ordo::tokenizer
