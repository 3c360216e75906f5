#include "tokenizer/stream_decoder.hpp"

namespace ordo::tokenizer {

std::size_t unfinished_utf8_suffix(std::string_view s) {
  // Look back over at most 3 continuation bytes for the lead byte of the last character.
  const std::size_t n = s.size();
  std::size_t k = n;
  while (k > 0 && n - k < 3 && (static_cast<unsigned char>(s[k - 1]) & 0xC0) == 0x80) --k;
  if (k == 0) return 0;
  const auto lead = static_cast<unsigned char>(s[k - 1]);
  const std::size_t need = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xC2 && lead <= 0xDF ? 2 : 0;
  const std::size_t have = n - (k - 1);
  if (need == 0 || have >= need) return 0;  // not a lead byte, or the character is complete
  // The second byte of E0/ED/F0/F4 sequences has a narrower range; outside it no continuation helps.
  if (have >= 2) {
    const auto b1 = static_cast<unsigned char>(s[k]);
    if ((lead == 0xE0 && b1 < 0xA0) || (lead == 0xED && b1 > 0x9F) || (lead == 0xF0 && b1 < 0x90) ||
        (lead == 0xF4 && b1 > 0x8F))
      return 0;
  }
  return have;
}

std::string stream_decoder::push(int32_t id) {
  const token_type t = tok_->type(id);
  if (mode_ == decode_specials::skip && t != token_type::normal && t != token_type::byte) return {};
  held_ += tok_->token_bytes(id);
  const std::size_t keep = unfinished_utf8_suffix(held_);
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string stream_decoder::flush() {
  std::string out;
  out.swap(held_);
  return out;
}

}  // namespace ordo::tokenizer
