// Classes of hand-picked code points, with the category each has in the Unicode database.
#include <gtest/gtest.h>

#include "tokenizer/unicode_class.hpp"

using namespace ordo::tokenizer;
namespace c = ordo::tokenizer::uclass;

TEST(unicode_class, general_categories) {
  EXPECT_EQ(unicode_class(U'a'), c::letter);
  EXPECT_EQ(unicode_class(U'\u00E9'), c::letter);     // é Ll
  EXPECT_EQ(unicode_class(U'\u02B0'), c::letter);     // ʰ Lm
  EXPECT_EQ(unicode_class(U'\u0301'), c::mark);       // combining acute Mn
  EXPECT_EQ(unicode_class(U'\u0903'), c::mark);       // Devanagari visarga Mc
  EXPECT_EQ(unicode_class(U'7'), c::number);
  EXPECT_EQ(unicode_class(U'\u0661'), c::number);     // Arabic-Indic one Nd
  EXPECT_EQ(unicode_class(U'\u00BD'), c::number);     // ½ No
  EXPECT_EQ(unicode_class(U'\u2163'), c::number);     // Ⅳ Nl
  EXPECT_EQ(unicode_class(U'\u3002'), c::punct);      // 。 Po
  EXPECT_EQ(unicode_class(U'\u20AC'), c::symbol);     // € Sc
  EXPECT_EQ(unicode_class(U'^'), c::symbol | c::ascii_punct);  // Sk
  EXPECT_EQ(unicode_class(U'-'), c::punct | c::ascii_punct);
  EXPECT_EQ(unicode_class(U'\U0001F600'), c::symbol);  // 😀 So
  EXPECT_EQ(unicode_class(U'\u200D'), 0);              // ZWJ Cf
  EXPECT_EQ(unicode_class(U'\uE000'), 0);              // private use
}

TEST(unicode_class, ecmascript_whitespace) {
  for (char32_t s : {U'\t', U'\n', U'\v', U'\f', U'\r', U' ', U'\u00A0', U'\u1680', U'\u2000', U'\u200A',
                     U'\u2028', U'\u2029', U'\u202F', U'\u205F', U'\u3000', U'\uFEFF'})
    EXPECT_TRUE(unicode_class(s) & c::space) << std::hex << uint32_t(s);
  // Not ECMAScript \s (NEL is in Unicode White_Space, ZWSP is Cf).
  EXPECT_FALSE(unicode_class(U'\u0085') & c::space);
  EXPECT_FALSE(unicode_class(U'\u200B') & c::space);
}

TEST(unicode_class, cjk_ranges_are_exactly_those_of_the_regex) {
  EXPECT_EQ(unicode_class(U'\u4E00'), c::letter | c::cjk);  // 一
  EXPECT_EQ(unicode_class(U'\u9FA5'), c::letter | c::cjk);  // 龥
  EXPECT_EQ(unicode_class(U'\u9FA6'), c::letter);           // just past the range
  EXPECT_EQ(unicode_class(U'\u3041'), c::letter | c::cjk);  // ぁ
  EXPECT_EQ(unicode_class(U'\u30FB'), c::punct | c::cjk);   // ・ Po inside the katakana block
  EXPECT_EQ(unicode_class(U'\u3099'), c::mark | c::cjk);    // combining dakuten
  EXPECT_EQ(unicode_class(U'\u3400'), c::letter);           // CJK extension A: not in the range
  EXPECT_EQ(unicode_class(U'\uAC00'), c::letter);           // 가 Hangul: not in the range
  EXPECT_EQ(unicode_class(U'\uFF71'), c::letter);           // halfwidth ｱ: not in the range
}
