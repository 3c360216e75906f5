#include "tokenizer/vocab.hpp"

namespace ordo::tokenizer {

int32_t vocab::find(const std::string& text) const {
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] == text) return static_cast<int32_t>(i);
  return -1;
}

std::vector<int32_t> to_int32(const std::vector<token_type>& types) {
  std::vector<int32_t> out;
  out.reserve(types.size());
  for (token_type t : types) out.push_back(static_cast<int32_t>(t));
  return out;
}

}  // namespace ordo::tokenizer
