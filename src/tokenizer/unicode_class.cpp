#include "tokenizer/unicode_class.hpp"

#include <unicode/uchar.h>

#include <memory>

namespace ordo::tokenizer {
namespace {

bool is_ecmascript_space(char32_t cp) {
  switch (cp) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0xA0:
    case 0x2028: case 0x2029: case 0xFEFF:
      return true;
    default:
      return u_charType(static_cast<UChar32>(cp)) == U_SPACE_SEPARATOR;  // every Zs
  }
}

uint8_t classify(char32_t cp) {
  uint8_t f = 0;
  switch (u_charType(static_cast<UChar32>(cp))) {
    case U_UPPERCASE_LETTER: case U_LOWERCASE_LETTER: case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER: case U_OTHER_LETTER:
      f |= uclass::letter; break;
    case U_NON_SPACING_MARK: case U_ENCLOSING_MARK: case U_COMBINING_SPACING_MARK:
      f |= uclass::mark; break;
    case U_DECIMAL_DIGIT_NUMBER: case U_LETTER_NUMBER: case U_OTHER_NUMBER:
      f |= uclass::number; break;
    case U_DASH_PUNCTUATION: case U_START_PUNCTUATION: case U_END_PUNCTUATION:
    case U_CONNECTOR_PUNCTUATION: case U_OTHER_PUNCTUATION: case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION:
      f |= uclass::punct; break;
    case U_MATH_SYMBOL: case U_CURRENCY_SYMBOL: case U_MODIFIER_SYMBOL: case U_OTHER_SYMBOL:
      f |= uclass::symbol; break;
    default: break;
  }
  if (is_ecmascript_space(cp)) f |= uclass::space;
  if ((cp >= 0x4E00 && cp <= 0x9FA5) || (cp >= 0x3040 && cp <= 0x30FF)) f |= uclass::cjk;
  if ((cp >= 0x21 && cp <= 0x2F) || (cp >= 0x3A && cp <= 0x40) || (cp >= 0x5B && cp <= 0x60) ||
      (cp >= 0x7B && cp <= 0x7E))
    f |= uclass::ascii_punct;
  return f;
}

}  // namespace

const uint8_t* unicode_class_table() {
  static const std::unique_ptr<uint8_t[]> table = [] {
    auto t = std::make_unique<uint8_t[]>(0x110000);
    for (char32_t cp = 0; cp < 0x110000; ++cp) t[cp] = classify(cp);
    return t;
  }();
  return table.get();
}

}  // namespace ordo::tokenizer
