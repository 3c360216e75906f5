// DeepSeek pre-tokenizer: expected splits worked out by hand from the three regexes (comments
// say which alternative takes each piece; checked once against the regexes run by node), and
// properties: pieces concatenate to the input, and
// cutting at next_safe_cut never changes the pieces.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "tokenizer/pre_tokenizer.hpp"

using namespace ordo::tokenizer;
using pieces = std::vector<std::string>;

namespace {
pieces split(std::string_view s) {
  pieces out;
  for (auto p : deepseek_pre_tokenize(s)) out.emplace_back(p);
  return out;
}
}  // namespace

TEST(pre_tokenizer, words_take_their_leading_space) {
  EXPECT_EQ(split("Hello world"), (pieces{"Hello", " world"}));
  // A whitespace run before a word gives its last space to the word (\s+(?!\S) backs off one).
  EXPECT_EQ(split("a   b"), (pieces{"a", "  ", " b"}));
  EXPECT_EQ(split("  hello"), (pieces{" ", " hello"}));
  // At the end of the text the whole run is one piece.
  EXPECT_EQ(split("hello  "), (pieces{"hello", "  "}));
  EXPECT_EQ(split("   "), (pieces{"   "}));
}

TEST(pre_tokenizer, newlines) {
  // \s*[\r\n]+ stops at the last newline of the run; the spaces after it go with the word.
  EXPECT_EQ(split("a\n\n  b"), (pieces{"a", "\n\n", " ", " b"}));
  EXPECT_EQ(split("x  \ny"), (pieces{"x", "  \n", "y"}));
  EXPECT_EQ(split("a\r\nb"), (pieces{"a", "\r\n", "b"}));
  EXPECT_EQ(split("\t\tx"), (pieces{"\t", "\tx"}));  // a tab may prefix a word too
}

TEST(pre_tokenizer, digits_in_groups_of_three) {
  EXPECT_EQ(split("12345"), (pieces{"123", "45"}));
  EXPECT_EQ(split("abc1234567def"), (pieces{"abc", "123", "456", "7", "def"}));
  EXPECT_EQ(split("x 42"), (pieces{"x", " ", "42"}));    // the space is left alone before digits
  EXPECT_EQ(split("\u00BD\u0661\u0662"), (pieces{"\u00BD\u0661\u0662"}));  // ½١٢ are all \p{N}
}

TEST(pre_tokenizer, cjk_runs_are_isolated) {
  EXPECT_EQ(split("我想在apple工作"), (pieces{"我想在", "apple", "工作"}));
  EXPECT_EQ(split("東京タワー333"), (pieces{"東京タワー", "333"}));
  // Hangul is outside the CJK ranges: an ordinary letter run with its space.
  EXPECT_EQ(split("안녕 하세요"), (pieces{"안녕", " 하세요"}));
}

TEST(pre_tokenizer, punctuation) {
  // [ascii punct][A-Za-z]+ first: contractions, dotted names, underscored words.
  EXPECT_EQ(split("don't"), (pieces{"don", "'t"}));
  EXPECT_EQ(split("a.b_c"), (pieces{"a", ".b", "_c"}));
  // ' '?[\p{P}\p{S}]+[\r\n]*: a punctuation run keeps its trailing newlines.
  EXPECT_EQ(split("x>;\n\ny"), (pieces{"x", ">;\n\n", "y"}));
  // At 0 the punct alternative takes " (" before "(x" could be tried at 1.
  EXPECT_EQ(split(" (x)"), (pieces{" (", "x", ")"}));
  EXPECT_EQ(split("f( x)"), (pieces{"f", "(", " x", ")"}));
  EXPECT_EQ(split("a !!"), (pieces{"a", " !!"}));
  // A non-ASCII punctuation mark does not start the letter alternative.
  EXPECT_EQ(split("«word»"), (pieces{"«", "word", "»"}));
}

TEST(pre_tokenizer, marks_and_other_characters) {
  // A mark may be the optional prefix or part of the letter run.
  EXPECT_EQ(split("e\u0301t\u0301"), (pieces{"e\u0301t\u0301"}));
  EXPECT_EQ(split("\u0301x"), (pieces{"\u0301x"}));
  // ZWJ (Cf) prefixes a following letter, but between two emoji no alternative takes it.
  EXPECT_EQ(split("😶\u200d🌫\ufe0f"), (pieces{"😶", "\u200d", "🌫", "\ufe0f"}));
  EXPECT_EQ(split("\u200dab"), (pieces{"\u200dab"}));
  // An invalid UTF-8 byte has no class: it stays raw data, prefixing the letters after it.
  EXPECT_EQ(split("\xff" "ab"), (pieces{"\xff" "ab"}));
  EXPECT_EQ(split("a\xff"), (pieces{"a", "\xff"}));
}

TEST(pre_tokenizer, whitespace_semantics_differ_at_u0085_and_ufeff_only) {
  auto split_as = [](std::string_view s, regex_whitespace ws) {
    pieces out;
    for (auto p : deepseek_pre_tokenize(s, ws)) out.emplace_back(p);
    return out;
  };
  // ECMAScript: NEL is \S (spaces back off before it, it stays alone), ZWNBSP is \s.
  EXPECT_EQ(split_as("a  \u0085", regex_whitespace::ecmascript), (pieces{"a", " ", " ", "\u0085"}));
  EXPECT_EQ(split_as("a  \ufeff", regex_whitespace::ecmascript), (pieces{"a", "  \ufeff"}));
  // Unicode White_Space: the other way round.
  EXPECT_EQ(split_as("a  \u0085", regex_whitespace::unicode), (pieces{"a", "  \u0085"}));
  EXPECT_EQ(split_as("a  \ufeff", regex_whitespace::unicode), (pieces{"a", " ", " ", "\ufeff"}));
  // A raw 0x85 byte (invalid UTF-8) is not NEL.
  EXPECT_EQ(split_as("a  \x85", regex_whitespace::unicode), (pieces{"a", " ", " ", "\x85"}));
}

namespace {
// Characters from every class the regexes distinguish, so random strings hit the boundaries.
const std::vector<std::string> alphabet = {
    "a", "Z", "é", "\u0301", "1", "٣", "½", " ", "  ", "\t", "\n", "\r", "\u00a0", "\u3000", "\ufeff",
    "'", ".", "_", "!", "(", "<", ">", "«", "€", "😀", "\u200d", "中", "ア", "ー", "・", "한", "\xff", "\xe4\xb8"};

std::string random_text() {
  const auto parts = *rc::gen::container<std::vector<std::size_t>>(
      rc::gen::inRange<std::size_t>(0, alphabet.size()));
  std::string s;
  for (std::size_t i : parts) s += alphabet[i];
  return s;
}
}  // namespace

RC_GTEST_PROP(pre_tokenizer, pieces_concatenate_to_the_input, ()) {
  const std::string s = random_text();
  std::string joined;
  for (auto p : deepseek_pre_tokenize(s)) {
    RC_ASSERT(!p.empty());
    joined += p;
  }
  RC_ASSERT(joined == s);
}

RC_GTEST_PROP(pre_tokenizer, safe_cuts_do_not_change_the_pieces, ()) {
  const std::string s = random_text();
  const auto whole = split(s);
  pieces parts;
  const std::size_t step = *rc::gen::inRange<std::size_t>(1, 8);  // cuts are searched from b + step > b
  for (std::size_t b = 0; b < s.size();) {
    const std::size_t e = next_safe_cut(s, b + step);
    RC_ASSERT(e > b);
    for (auto p : deepseek_pre_tokenize(std::string_view(s).substr(b, e - b))) parts.emplace_back(p);
    b = e;
  }
  RC_ASSERT(parts == whole);
}
