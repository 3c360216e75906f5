// GPT-2 byte mapping: fixed points and the shifted bytes, checked against values written out from
// the mapping's definition (printable Latin-1 maps to itself, the other 68 bytes to U+0100.. in order).
#include <gtest/gtest.h>

#include "tokenizer/byte_level.hpp"

using namespace ordo::tokenizer;

TEST(byte_level, printable_bytes_map_to_themselves) {
  EXPECT_EQ(byte_to_code_point('A'), U'A');
  EXPECT_EQ(byte_to_code_point('!'), U'!');
  EXPECT_EQ(byte_to_code_point('~'), U'~');
  EXPECT_EQ(byte_to_code_point(0xA1), U'\u00A1');
  EXPECT_EQ(byte_to_code_point(0xAC), U'\u00AC');
  EXPECT_EQ(byte_to_code_point(0xAE), U'\u00AE');
  EXPECT_EQ(byte_to_code_point(0xFF), U'\u00FF');
}

TEST(byte_level, other_bytes_shift_to_u0100_in_byte_order) {
  EXPECT_EQ(byte_to_code_point(0x00), U'\u0100');
  EXPECT_EQ(byte_to_code_point('\t'), U'\u0109');  // ĉ
  EXPECT_EQ(byte_to_code_point('\n'), U'\u010A');  // Ċ
  EXPECT_EQ(byte_to_code_point(' '), U'\u0120');   // Ġ: 0x00..0x20 are the first 33
  EXPECT_EQ(byte_to_code_point(0x7F), U'\u0121');  // ġ
  EXPECT_EQ(byte_to_code_point(0xA0), U'\u0142');  // 0x7F..0xA0 are the next 34
  EXPECT_EQ(byte_to_code_point(0xAD), U'\u0143');  // the soft hyphen is the last one
  EXPECT_EQ(bytes_to_symbols(" hi\n"), "Ġhi\u010A");
}

TEST(byte_level, round_trips_every_byte_and_rejects_foreign_text) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(char(b));
  const std::string sym = bytes_to_symbols(all);
  ASSERT_TRUE(symbols_to_bytes(sym).has_value());
  EXPECT_EQ(*symbols_to_bytes(sym), all);
  EXPECT_FALSE(symbols_to_bytes("\u0144").has_value());  // one past the mapping
  EXPECT_FALSE(symbols_to_bytes("中").has_value());
  EXPECT_FALSE(symbols_to_bytes("\xC3").has_value());     // truncated UTF-8
}
