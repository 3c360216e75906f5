/// A rendered prompt as a list of segments: special tokens the template placed (by their text,
/// e.g. "<｜User｜>"), and text. Only the renderer creates special segments; every other byte,
/// template glue and user content alike, is encoded as ordinary text with special-token matching
/// off. So content can never forge structure (a user's "<｜Assistant｜>" stays plain text), while
/// the text runs between special tokens are tokenized whole, exactly as a tokenizer sees the
/// rendered string (pre-tokenization can join template glue and content, e.g. ">abc").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/bpe_tokenizer.hpp"

namespace ordo::chat {

struct segment {
  enum class kind { special, text };
  kind type;
  std::string value;
};

class prompt {
 public:
  /// Appends a special token by its vocabulary text.
  void special(std::string_view token) { push(segment::kind::special, token); }
  /// Appends text (merged into the previous text segment).
  void text(std::string_view t) { push(segment::kind::text, t); }

  const std::vector<segment>& segments() const { return segments_; }
  /// The rendered string (what a log or a template comparison shows).
  std::string str() const;

  /// Token ids: special segments by exact vocabulary lookup (a missing token is an error naming
  /// it), text runs encoded with special_tokens::plain.
  std::vector<int32_t> encode(const tokenizer::bpe_tokenizer& tok) const;

 private:
  void push(segment::kind k, std::string_view v);
  std::vector<segment> segments_;
};

}  // namespace ordo::chat
