/// Decodes generated tokens one at a time into text that never ends inside a UTF-8 character:
/// byte-level BPE tokens often carry part of a character (an emoji is usually 2–4 tokens), and
/// printing those bytes as they come would show replacement characters in a terminal or break a
/// JSON string in a server response. Bytes of an unfinished character are held until the token
/// that completes it; bytes that can never become valid UTF-8 are passed on at once.
#pragma once
#include <cstdint>
#include <string>

#include "tokenizer/bpe_tokenizer.hpp"

namespace ordo::tokenizer {

class stream_decoder {
 public:
  explicit stream_decoder(const bpe_tokenizer& tok, decode_specials mode = decode_specials::render)
      : tok_(&tok), mode_(mode) {}

  /// The text that token `id` completes (possibly empty).
  std::string push(int32_t id);
  /// Whatever is still held (an unfinished character at the end of the stream).
  std::string flush();

 private:
  const bpe_tokenizer* tok_;
  decode_specials mode_;
  std::string held_;
};

/// Length of the unfinished UTF-8 character at the end of `s` that more bytes could complete:
/// 0 when `s` ends on a character boundary or with bytes that no continuation can make valid.
std::size_t unfinished_utf8_suffix(std::string_view s);

}  // namespace ordo::tokenizer
