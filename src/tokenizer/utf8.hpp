/// Minimal UTF-8 decoding and encoding for the tokenizer. Decoding is strict (no overlongs, no
/// surrogates, nothing above U+10FFFF); an invalid byte is reported as a one-byte step so the
/// caller can keep it as raw data: byte-level BPE still encodes it, it just has no Unicode class.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace ordo::tokenizer {

struct utf8_step {
  char32_t cp;          // the code point (the raw byte value when !valid)
  unsigned char length; // bytes consumed: 1..4
  bool valid;
};

/// Decodes the code point starting at byte `i` of `s` (i < s.size()).
inline utf8_step decode_utf8(std::string_view s, std::size_t i) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + i;
  const std::size_t left = s.size() - i;
  const unsigned c0 = p[0];
  if (c0 < 0x80) return {c0, 1, true};
  auto cont = [&](std::size_t k) { return k < left && (p[k] & 0xC0) == 0x80; };
  if (c0 >= 0xC2 && c0 <= 0xDF && cont(1)) return {char32_t(((c0 & 0x1F) << 6) | (p[1] & 0x3F)), 2, true};
  if (c0 >= 0xE0 && c0 <= 0xEF && cont(1) && cont(2)) {
    const char32_t cp = ((c0 & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    if (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF)) return {cp, 3, true};
  } else if (c0 >= 0xF0 && c0 <= 0xF4 && cont(1) && cont(2) && cont(3)) {
    const char32_t cp = ((c0 & 0x07) << 18) | ((p[1] & 0x3F) << 12) | ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
    if (cp >= 0x10000 && cp <= 0x10FFFF) return {cp, 4, true};
  }
  return {c0, 1, false};
}

/// Appends the UTF-8 encoding of `cp` (a valid scalar value) to `out`.
inline void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace ordo::tokenizer
