/// The Unicode classes the DeepSeek pre-tokenizer regexes ask about (ds4-model.md §9.1), from
/// ICU's general categories (u_charType): \p{L}, \p{M}, \p{N}, \p{P}, \p{S}; plus \s and the
/// CJK/kana ranges. The `space` bit is ECMAScript \s (WhiteSpace + LineTerminator: TAB VT FF SP
/// NBSP ZWNBSP U+FEFF, every Zs, LF CR LS PS), what the tokenizer's JS port uses; Unicode
/// White_Space (HF `tokenizers` in Rust, llama.cpp) differs only at U+0085 (in) and U+FEFF (out),
/// which the pre-tokenizer adjusts for regex_whitespace::unicode. On the parity corpus the Rust
/// and JS tokenizers agree on 1066 of 1084 strings, all 18 differences being strings with one of
/// those two characters (tests/parity/tokenizer/hf_compare.py, run where `tokenizers` exists).
/// A table of one flag byte per code point is built once, so classifying costs one load.
#pragma once
#include <cstdint>

namespace ordo::tokenizer {

namespace uclass {
inline constexpr uint8_t letter = 1;       // \p{L}
inline constexpr uint8_t mark = 2;         // \p{M}
inline constexpr uint8_t number = 4;       // \p{N}
inline constexpr uint8_t punct = 8;        // \p{P}
inline constexpr uint8_t symbol = 16;      // \p{S}
inline constexpr uint8_t space = 32;       // \s (ECMAScript)
inline constexpr uint8_t cjk = 64;         // [一-龥぀-ゟ゠-ヿ]: U+4E00–9FA5, U+3040–30FF
inline constexpr uint8_t ascii_punct = 128;  // [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]
}  // namespace uclass

/// The flag table, indexed by code point (0..0x10FFFF).
const uint8_t* unicode_class_table();

/// Flags of `cp`; 0 for values outside the code space (such as an invalid UTF-8 byte's marker).
inline uint8_t unicode_class(char32_t cp) {
  static const uint8_t* table = unicode_class_table();
  return cp <= 0x10FFFF ? table[cp] : 0;
}

}  // namespace ordo::tokenizer
