// stop_matcher (src/generate/stop_strings.hpp): the shown text is exactly the text before the
// first stop string, whichever way the text is split into tokens.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "generate/stop_strings.hpp"

namespace {

using ordo::generate::stop_matcher;

using shown_and_stop = std::pair<std::string, std::string>;
shown_and_stop expect(const std::string& shown, const std::string& stop) { return {shown, stop}; }

// Feeds `text` in pieces of `piece` bytes; returns what was shown and the stop found.
shown_and_stop run(const std::vector<std::string>& stops, const std::string& text, std::size_t piece) {
  stop_matcher m(stops);
  std::string shown;
  for (std::size_t i = 0; i < text.size() && !m.matched(); i += piece) shown += m.push(text.substr(i, piece));
  if (!m.matched()) shown += m.flush();
  return {shown, m.matched().value_or("")};
}

TEST(stop_strings, shown_text_ends_before_the_first_stop_for_every_split) {
  const std::string text = "one two ### three END four";
  for (std::size_t piece = 1; piece <= text.size(); ++piece) {
    EXPECT_EQ(run({"END", "###"}, text, piece), expect("one two ", "###")) << piece;
    EXPECT_EQ(run({"END"}, text, piece), expect("one two ### three ", "END")) << piece;
    EXPECT_EQ(run({"nowhere"}, text, piece), expect(text, "")) << piece;
    EXPECT_EQ(run({"one"}, text, piece), expect("", "one")) << piece;
  }
}

TEST(stop_strings, a_possible_start_is_held_until_decided) {
  stop_matcher m({"\n\nUser:"});
  EXPECT_EQ(m.push("Hi.\n"), "Hi.");
  EXPECT_EQ(m.push("\nUs"), "");
  EXPECT_EQ(m.push("ually"), "\n\nUsually");  // not the stop string after all: all of it shows
  EXPECT_FALSE(m.matched());
  EXPECT_EQ(m.push("\n\nUser"), "");
  EXPECT_EQ(m.flush(), "\n\nUser");  // the end came first: the held text is shown
}

TEST(stop_strings, empty_stop_strings_are_ignored) {
  EXPECT_EQ(run({""}, "abc", 1), expect("abc", ""));
}

}  // namespace
