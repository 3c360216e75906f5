// The part of a sequence state that decides every later step: per layer the raw rows the next
// token sees, the compressor ring rows of the windows still open (ratio 4: windows w − 1 and w,
// ratio 128: window w, w = frontier / ratio, state_layout.hpp), every emitted row, and the same for
// the MTP ring. Rows past a frontier (written ahead, or by a rejected speculation) are invisible
// and rewritten before they are read (sequence_state.hpp), so two states that agree here give the
// same bits from now on; a whole-arena comparison would also compare that dead space.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "ordo/runtime/sequence_state.hpp"

namespace ordo::runtime::test {

inline void append_bytes(std::vector<unsigned char>& out, const void* p, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  out.insert(out.end(), b, b + n);
}

inline void append_compressor(std::vector<unsigned char>& out, const compressor_state& c, int64_t f) {
  const compressor_layout& l = c.layout();
  const int64_t r = l.ratio, w = f / r;
  const int64_t lo = r == 4 ? 4 * (w - 1) : r * w;
  for (int64_t p = lo; p < f; ++p) {
    append_bytes(out, c.kv_row(p), l.width * sizeof(float));
    append_bytes(out, c.score_row(p), l.width * sizeof(float));
  }
  for (int64_t k = 0; k < c.rows_at(f); ++k) append_bytes(out, c.out_row(k), l.out_width * sizeof(float));
}

inline void append_layer(std::vector<unsigned char>& out, const layer_state& l) {
  const int64_t f = l.frontier();
  append_bytes(out, &f, sizeof f);
  for (int64_t p = l.raw_first_visible(f); p < f; ++p) append_bytes(out, l.raw_row(p), l.layout().raw.row_bytes);
  if (l.attn()) append_compressor(out, *l.attn(), f);
  if (l.indexer()) append_compressor(out, *l.indexer(), f);
}

/// The main layers' live bytes.
inline std::vector<unsigned char> live_main(const sequence_state& s) {
  std::vector<unsigned char> out;
  for (std::size_t il = 0; il < s.n_layer(); ++il) append_layer(out, s.layer(il));
  return out;
}

/// The MTP ring's live bytes.
inline std::vector<unsigned char> live_mtp(sequence_state& s) {
  std::vector<unsigned char> out;
  if (s.mtp()) append_layer(out, *s.mtp());
  return out;
}

/// FNV-1a, for storing a reference's states per position compactly.
inline uint64_t fnv1a(const std::vector<unsigned char>& b) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : b) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace ordo::runtime::test
