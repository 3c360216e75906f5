#include "tokenizer/merge_table.hpp"

namespace ordo::tokenizer {

merge_table::merge_table(std::size_t expected) {
  std::size_t cap = 16;
  while (cap < expected * 2) cap *= 2;  // load factor <= 1/2 keeps probes short
  entries_.assign(cap, entry{});
  mask_ = cap - 1;
}

bool merge_table::insert(int32_t left, int32_t right, int32_t rank, int32_t result) {
  if ((size_ + 1) * 2 > entries_.size()) grow();
  const uint64_t key = pack(left, right);
  for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
    entry& e = entries_[i];
    if (e.key == key) return false;
    if (e.key == empty) {
      e.key = key;
      e.value = {rank, result};
      ++size_;
      return true;
    }
  }
}

void merge_table::grow() {
  std::vector<entry> old = std::move(entries_);
  entries_.assign(old.size() * 2, entry{});
  mask_ = entries_.size() - 1;
  size_ = 0;
  for (const entry& e : old)
    if (e.key != empty) insert(int32_t(e.key >> 32), int32_t(uint32_t(e.key)), e.value.rank, e.value.result);
}

}  // namespace ordo::tokenizer
