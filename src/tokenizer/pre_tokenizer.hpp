/// The DeepSeek-V3 pre-tokenizer (ds4-model.md §9.1; tokenizer.json `pre_tokenizer`): three
/// regex Splits with Isolated behaviour, applied in sequence, each to every piece the previous one
/// produced (so a later regex never sees across an earlier boundary, lookaheads included):
///   1. \p{N}{1,3}
///   2. [一-龥぀-ゟ゠-ヿ]+
///   3. [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+ | [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
///      | ?[\p{P}\p{S}]+[\r\n]* | \s*[\r\n]+ | \s+(?!\S) | \s+
/// "Isolated" keeps both the matches and the text between them as pieces. The regexes are
/// implemented by hand with the backtracking semantics of an ordered-alternation engine (what
/// each alternative matches at a position is derived in pre_tokenizer.cpp), which is both exact
/// and much faster than a regex engine. Pieces are views into the input text.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace ordo::tokenizer {

/// What \s means in the third regex. The tokenizer.json regexes are run by different engines
/// that disagree on exactly two characters: Unicode White_Space (HF `tokenizers` in Rust, which
/// DeepSeek's own stack and the model's training ran, and llama.cpp) counts U+0085 and not
/// U+FEFF; ECMAScript (the JS port @lenml/tokenizers) counts U+FEFF and not U+0085. `unicode` is
/// the default; `ecmascript` reproduces the JS oracle id for id. Both are tested against their
/// oracles (tests/parity/tokenizer).
enum class regex_whitespace { unicode, ecmascript };

/// Reusable scratch (decoded code points and their classes) so that splitting allocates nothing
/// once warm.
struct pre_tokenizer_scratch {
  std::vector<char32_t> cps;      // code point, or the raw byte of an invalid UTF-8 sequence
  std::vector<uint8_t> flags;     // unicode_class of each code point (0 for invalid bytes)
  std::vector<std::size_t> offs;  // byte offset of each code point, plus one past the end
};

/// Appends the pieces of `text` to `pieces`, in order; their concatenation is `text`.
void deepseek_pre_tokenize(std::string_view text, std::vector<std::string_view>& pieces,
                           pre_tokenizer_scratch& scratch,
                           regex_whitespace ws = regex_whitespace::unicode);

/// Convenience overload with its own scratch.
std::vector<std::string_view> deepseek_pre_tokenize(std::string_view text,
                                                    regex_whitespace ws = regex_whitespace::unicode);

/// The first byte offset >= `from` where `text` can be cut so that pre-tokenizing the two parts
/// separately gives the same pieces as the whole: just after a '\n' that a letter A-Z/a-z
/// follows (text.size() if there is none). Why it is safe: '\n' and ASCII letters are neither
/// \p{N} nor CJK, so stages 1 and 2 only split a gap there; in stage 3 every alternative that can
/// take a '\n' (the punct run's [\r\n]*, \s*[\r\n]+, \s+...) stops before a letter, and
/// \s*[\r\n]+ wins over \s+(?!\S) for a whitespace run ending in '\n', so no match depends on
/// what follows; the letter then always starts a new match. Lets long texts be processed in
/// cache-sized chunks.
std::size_t next_safe_cut(std::string_view text, std::size_t from);

}  // namespace ordo::tokenizer
