#include "eval/eval.hpp"

#include <sstream>
#include <stdexcept>

namespace ordo::eval {

std::vector<int32_t> parse_token_ids(const std::string& text, const std::string& what) {
  std::vector<int32_t> ids;
  std::string item;
  std::stringstream in(text);
  while (std::getline(in, item, ',')) {
    std::stringstream words(item);
    std::string word;
    while (words >> word) {
      std::size_t used = 0;
      long long v = -1;
      try {
        v = std::stoll(word, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size() || v < 0 || v > INT32_MAX)
        throw std::invalid_argument(what + ": '" + word + "' is not a token id");
      ids.push_back(static_cast<int32_t>(v));
    }
  }
  return ids;
}

int32_t argmax(std::span<const float> row) {
  int32_t best = 0;
  for (std::size_t i = 1; i < row.size(); ++i)
    if (row[i] > row[best]) best = static_cast<int32_t>(i);
  return best;
}

ordl evaluate(backend& b, const std::vector<int32_t>& prompt, int n_gen) {
  if (prompt.empty()) throw std::invalid_argument("eval: the prompt has no tokens");
  if (n_gen < 0) throw std::invalid_argument("eval: --gen must be >= 0");
  ordl d;
  d.n_vocab = b.n_vocab();
  for (int32_t t : prompt)
    if (t < 0 || static_cast<uint32_t>(t) >= d.n_vocab)
      throw std::invalid_argument("eval: token id " + std::to_string(t) + " outside the vocabulary of " +
                                  std::to_string(d.n_vocab));
  auto feed = [&](int32_t t) {
    const std::vector<float> row = b.step(t);
    d.tokens.push_back(t);
    d.logits.insert(d.logits.end(), row.begin(), row.end());
  };
  for (int32_t t : prompt) feed(t);
  for (int g = 0; g < n_gen; ++g) feed(argmax(d.row(d.tokens.size() - 1)));
  return d;
}

}  // namespace ordo::eval
