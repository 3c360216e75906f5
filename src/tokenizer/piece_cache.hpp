/// Per-call cache from a pre-token's bytes to its BPE ids. Keys are views into the text being
/// encoded (alive for the call); ids live in one flat array. Open addressing with a cheap
/// word-at-a-time hash: English prose repeats a few thousand words, so most pieces are hits and
/// the lookup is the hot path of encoding.
#pragma once
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace ordo::tokenizer {

class piece_cache {
 public:
  /// The cached ids of `piece`, or an empty span with found == false.
  struct result {
    std::span<const int32_t> ids;
    bool found;
  };

  result find(std::string_view piece) const {
    if (slots_.empty()) return {{}, false};
    const uint64_t h = hash(piece);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const slot& s = slots_[i];
      if (s.data == nullptr) return {{}, false};
      if (s.hash == uint32_t(h >> 32) && s.size == piece.size() && std::memcmp(s.data, piece.data(), piece.size()) == 0)
        return {{ids_.data() + s.begin, s.count}, true};
    }
  }

  void insert(std::string_view piece, std::span<const int32_t> ids) {
    if ((used_ + 1) * 2 > slots_.size()) grow();
    place(piece, hash(piece), uint32_t(ids_.size()), uint32_t(ids.size()));
    ids_.insert(ids_.end(), ids.begin(), ids.end());
  }

 private:
  struct slot {
    const char* data = nullptr;
    uint32_t size = 0;
    uint32_t hash = 0;
    uint32_t begin = 0;
    uint32_t count = 0;
  };

  static uint64_t hash(std::string_view s) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 29;
    }
    uint64_t w = 0;
    std::memcpy(&w, s.data() + i, s.size() - i);
    h = (h ^ w) * 0x94D049BB133111EBull;
    return h ^ (h >> 31);
  }

  void place(std::string_view piece, uint64_t h, uint32_t begin, uint32_t count) {
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      slot& s = slots_[i];
      if (s.data == nullptr) {
        s = {piece.data(), uint32_t(piece.size()), uint32_t(h >> 32), begin, count};
        ++used_;
        return;
      }
    }
  }

  void grow() {
    std::vector<slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, slot{});
    mask_ = slots_.size() - 1;
    used_ = 0;
    for (const slot& s : old)
      if (s.data) place({s.data, s.size}, hash({s.data, s.size}), s.begin, s.count);
  }

  std::vector<slot> slots_;
  std::vector<int32_t> ids_;
  std::size_t mask_ = 0;
  std::size_t used_ = 0;
};

}  // namespace ordo::tokenizer
