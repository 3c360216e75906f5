#include "eval/eval.hpp"

#include <sstream>
#include <stdexcept>

namespace ordo::eval {

std::vector<int32_t> parse_token_ids(const std::string& text, const std::string& what) {
  std::vector<int32_t> ids;
  std::string item;
  // A `--dump-tokens` file (ds4's format): the bracketed first line is the list, the lines after
  // it show each token's text.
  std::string list = text;
  if (const std::size_t open = text.find_first_not_of(" \t\r\n"); open != std::string::npos && text[open] == '[') {
    const std::size_t close = text.find(']', open);
    if (close == std::string::npos) throw std::invalid_argument(what + ": '[' without ']'");
    list = text.substr(open + 1, close - open - 1);
  }
  std::stringstream in(list);
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

ordl evaluate(backend& b, const std::vector<int32_t>& prompt, int n_gen, runtime::speculative_decoder* spec) {
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
  // The prompt through prefill (chunked where the backend has it), every row kept.
  d.logits = b.prefill(prompt, logits_rows::every);
  d.tokens = prompt;
  if (d.logits.size() != prompt.size() * d.n_vocab)
    throw std::runtime_error(std::string(b.name()) + " backend: prefill returned " + std::to_string(d.logits.size()) +
                             " logits for " + std::to_string(prompt.size()) + " positions of " +
                             std::to_string(d.n_vocab));
  std::vector<runtime::committed_row> ahead;  // a round's rows not yet recorded
  std::size_t next = 0;
  for (int g = 0; g < n_gen; ++g) {
    const int32_t t = argmax(d.row(d.tokens.size() - 1));
    if (!spec) {
      feed(t);
      continue;
    }
    if (next == ahead.size()) ahead = spec->round(t), next = 0;
    if (ahead[next].token != t) throw std::logic_error("eval: speculation committed another token than greedy");
    d.tokens.push_back(t);
    d.logits.insert(d.logits.end(), ahead[next].logits.begin(), ahead[next].logits.end());
    ++next;
  }
  return d;
}

}  // namespace ordo::eval
