/// Reads the `--dump-tokens` files of `ordo generate` / `ordo chat` for the e2e tests, on its own
/// (not with the app's reader): antirez/ds4's format, "[id, id, ...]" then "%6d  text" per token.
#pragma once
#include <cstdint>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace ordo::e2e {

struct token_dump {
  std::vector<int32_t> ids;          // the first line
  std::vector<std::string> texts;    // the per-token lines' text
  bool well_formed = false;          // both parts agree (same ids, same count)
};

inline token_dump parse_token_dump(const std::string& file) {
  token_dump d;
  std::istringstream in(file);
  std::string line;
  if (!std::getline(in, line) || line.size() < 2 || line.front() != '[' || line.back() != ']') return d;
  std::istringstream list(line.substr(1, line.size() - 2));
  for (std::string item; std::getline(list, item, ',');) d.ids.push_back(std::stoi(item));
  std::size_t i = 0;
  const std::regex row("^ *([0-9]+)  (.*)$");
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row) || i >= d.ids.size() || std::stoi(m[1]) != d.ids[i]) return d;
    d.texts.push_back(m[2]);
    ++i;
  }
  d.well_formed = i == d.ids.size();
  return d;
}

inline std::string join_ids(const std::vector<int32_t>& ids, std::size_t begin, std::size_t end) {
  std::string s;
  for (std::size_t i = begin; i < end; ++i) s += (s.empty() ? "" : ",") + std::to_string(ids[i]);
  return s;
}

}  // namespace ordo::e2e
