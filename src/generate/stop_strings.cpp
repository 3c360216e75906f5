#include "generate/stop_strings.hpp"

#include <algorithm>

namespace ordo::generate {

stop_matcher::stop_matcher(std::vector<std::string> stops) {
  for (auto& s : stops)
    if (!s.empty()) stops_.push_back(std::move(s));
}

std::string stop_matcher::push(std::string_view text) {
  if (matched_) return {};
  held_ += text;
  // The earliest occurrence of any stop string ends the text there.
  std::size_t first = std::string::npos;
  const std::string* which = nullptr;
  for (const auto& s : stops_) {
    const std::size_t at = held_.find(s);
    if (at < first) first = at, which = &s;
  }
  if (which) {
    matched_ = *which;
    std::string shown = held_.substr(0, first);
    held_.clear();
    return shown;
  }
  // Hold the longest suffix that is a proper prefix of some stop string: the next token may
  // complete it.
  std::size_t hold = 0;
#if !defined(ORDO_MUTANT_STOP_NO_HOLD)  // mutation check: show everything at once
  for (const auto& s : stops_)
    for (std::size_t n = std::min(s.size() - 1, held_.size()); n > hold; --n)
      if (held_.compare(held_.size() - n, n, s, 0, n) == 0) {
        hold = n;
        break;
      }
#endif
  std::string shown = held_.substr(0, held_.size() - hold);
  held_.erase(0, held_.size() - hold);
  return shown;
}

std::string stop_matcher::flush() {
  std::string rest;
  rest.swap(held_);
  return rest;
}

}  // namespace ordo::generate
