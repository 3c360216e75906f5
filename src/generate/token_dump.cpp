#include "generate/token_dump.hpp"

#include <fmt/core.h>

#include <fstream>
#include <stdexcept>
#include <string>

namespace ordo::generate {

void write_token_dump(const std::filesystem::path& path, const tokenizer::bpe_tokenizer& tok,
                      std::span<const int32_t> tokens) {
  std::string text = "[";
  for (std::size_t i = 0; i < tokens.size(); ++i) text += fmt::format("{}{}", i ? ", " : "", tokens[i]);
  text += "]\n";
  for (const int32_t id : tokens)
    if (id >= 0 && std::size_t(id) < tok.size()) text += fmt::format("{:6d}  {}\n", id, tok.token_text(id));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path.string() + ": cannot open for writing");
  out << text;
  if (!out.flush()) throw std::runtime_error(path.string() + ": write failed");
}

std::vector<int32_t> read_token_dump(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line)) throw std::runtime_error(path.string() + ": cannot read");
  const auto bad = [&](const std::string& why) { return std::runtime_error(path.string() + ": not a token dump: " + why); };
  if (line.size() < 2 || line.front() != '[' || line.back() != ']') throw bad("the first line is not [ids]");
  std::vector<int32_t> ids;
  std::size_t at = 1;
  const std::size_t end = line.size() - 1;
  while (at < end) {
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(line.substr(at, end - at), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || v < 0 || v > INT32_MAX) throw bad("'" + line.substr(at, end - at) + "' is not an id list");
    ids.push_back(int32_t(v));
    at += used;
    if (at < end) {
      if (line.compare(at, 2, ", ") != 0) throw bad("ids are not separated by \", \"");
      at += 2;
    }
  }
  return ids;
}

}  // namespace ordo::generate
