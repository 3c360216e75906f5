// stream_decoder: with the byte vocabulary every byte is its own token, the hardest case for
// holding back unfinished characters.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tokenizer/stream_decoder.hpp"
#include "tokenizer/utf8.hpp"
#include "tokenizer/vocab_builders.hpp"

using namespace ordo::tokenizer;

namespace {
const bpe_tokenizer& bytes_tokenizer() {
  static const bpe_tokenizer tok(byte_vocab());
  return tok;
}
bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto st = decode_utf8(s, i);
    if (!st.valid) return false;
    i += st.length;
  }
  return true;
}
}  // namespace

TEST(stream_decoder, holds_a_character_until_it_is_complete) {
  stream_decoder d(bytes_tokenizer());
  EXPECT_EQ(d.push('a'), "a");
  EXPECT_EQ(d.push(0xF0), "");  // 😀 = F0 9F 98 80
  EXPECT_EQ(d.push(0x9F), "");
  EXPECT_EQ(d.push(0x98), "");
  EXPECT_EQ(d.push(0x80), "😀");
  EXPECT_EQ(d.push(0xC3), "");  // é = C3 A9
  EXPECT_EQ(d.flush(), "\xC3");  // end of stream: the unfinished byte comes out
}

TEST(stream_decoder, passes_bytes_that_cannot_become_valid_at_once) {
  stream_decoder d(bytes_tokenizer());
  EXPECT_EQ(d.push(0xFF), "\xFF");
  EXPECT_EQ(d.push(0xE0), "");
  EXPECT_EQ(d.push(0x80), "\xE0\x80");  // E0 needs A0..BF next: overlong, never valid
  EXPECT_EQ(d.push(0xED), "");
  EXPECT_EQ(d.push(0xA0), "\xED\xA0");  // a surrogate
  EXPECT_EQ(d.push(0x80), "\x80");      // a stray continuation byte
}

TEST(stream_decoder, special_tokens_render_or_skip) {
  stream_decoder render(bytes_tokenizer());
  EXPECT_EQ(render.push(258), "<｜User｜>");
  stream_decoder skip(bytes_tokenizer(), decode_specials::skip);
  EXPECT_EQ(skip.push(258), "");
  EXPECT_EQ(skip.push('x'), "x");
}

RC_GTEST_PROP(stream_decoder, pieces_are_whole_characters_and_concatenate_to_the_text, ()) {
  std::string text;
  for (char32_t cp : *rc::gen::container<std::vector<char32_t>>(rc::gen::oneOf(
           rc::gen::inRange<char32_t>(0x20, 0x80), rc::gen::inRange<char32_t>(0x80, 0x800),
           rc::gen::inRange<char32_t>(0x800, 0xD800), rc::gen::inRange<char32_t>(0xE000, 0x10000),
           rc::gen::inRange<char32_t>(0x10000, 0x110000))))
    append_utf8(text, cp);
  stream_decoder d(bytes_tokenizer());
  std::string joined;
  for (unsigned char c : text) {
    const std::string piece = d.push(c);
    RC_ASSERT(valid_utf8(piece));
    joined += piece;
  }
  RC_ASSERT(d.flush().empty());
  RC_ASSERT(joined == text);
}
