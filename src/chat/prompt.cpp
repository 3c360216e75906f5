#include "chat/prompt.hpp"

namespace ordo::chat {

void prompt::push(segment::kind k, std::string_view v) {
  if (v.empty()) return;
  if (k == segment::kind::text && !segments_.empty() && segments_.back().type == segment::kind::text)
    segments_.back().value += v;
  else
    segments_.push_back({k, std::string(v)});
}

std::string prompt::str() const {
  std::string s;
  for (const auto& seg : segments_) s += seg.value;
  return s;
}

std::vector<int32_t> prompt::encode(const tokenizer::bpe_tokenizer& tok) const {
  std::vector<int32_t> ids;
  for (const auto& seg : segments_) {
    if (seg.type == segment::kind::special)
      ids.push_back(tok.id_of(seg.value));
    else
      tok.encode(seg.value, tokenizer::special_tokens::plain, ids);
  }
  return ids;
}

}  // namespace ordo::chat
