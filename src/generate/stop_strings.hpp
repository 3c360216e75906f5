/// Stop strings (`--stop S`, repeatable): generation ends at the first place where the decoded
/// text contains one of them. The stop string itself and everything after it are not shown, so
/// text that could still turn out to be the start of a stop string is held back until the next
/// token decides (a stop string may span several tokens, and a token may hold a stop string in
/// its middle).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ordo::generate {

class stop_matcher {
 public:
  /// Empty strings are ignored (they would stop before the first token).
  explicit stop_matcher(std::vector<std::string> stops);

  /// Appends decoded text; returns the text that can be shown now. Once a stop string is found,
  /// matched() names it and push returns only the text before it.
  std::string push(std::string_view text);
  /// The held text, when generation ends without a stop string.
  std::string flush();
  /// The stop string found, if any.
  const std::optional<std::string>& matched() const { return matched_; }

 private:
  std::vector<std::string> stops_;
  std::string held_;
  std::optional<std::string> matched_;
};

}  // namespace ordo::generate
