#include "tokenizer/pre_tokenizer.hpp"

#include "tokenizer/unicode_class.hpp"
#include "tokenizer/utf8.hpp"

namespace ordo::tokenizer {
namespace {

using std::size_t;

/// A Split with Isolated behaviour over code points [b, e): `match(i, e)` returns the end of the
/// match found at i (== i when none); matches and the gaps between them are emitted in order.
/// No alternative of the three regexes can match the empty string, so a failed position simply
/// advances by one code point, as a regex scan does.
template <class Match, class Emit>
void split_isolated(size_t b, size_t e, Match&& match, Emit&& emit) {
  size_t gap = b;
  size_t i = b;
  while (i < e) {
    const size_t end = match(i, e);
    if (end == i) {
      ++i;
      continue;
    }
    if (gap < i) emit(gap, i);
    emit(i, end);
    i = gap = end;
  }
  if (gap < e) emit(gap, e);
}

struct splitter {
  const char32_t* cp;
  const uint8_t* fl;

  bool has(size_t i, uint8_t f) const { return (fl[i] & f) != 0; }
  static bool ascii_alpha(char32_t c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
  static bool cr_lf(char32_t c) { return c == '\r' || c == '\n'; }

  // 1. \p{N}{1,3}: a digit run is cut into groups of three from its start (greedy, rescanned).
  size_t digits(size_t i, size_t e) const {
    size_t j = i;
    while (j < e && j - i < 3 && has(j, uclass::number)) ++j;
    return j;
  }

  // 2. [一-龥぀-ゟ゠-ヿ]+
  size_t cjk(size_t i, size_t e) const {
    size_t j = i;
    while (j < e && has(j, uclass::cjk)) ++j;
    return j;
  }

  size_t run(size_t j, size_t e, uint8_t f) const {
    while (j < e && has(j, f)) ++j;
    return j;
  }

  // 3. the six alternatives, tried in order at position i; the first that matches wins.
  size_t words(size_t i, size_t e) const {
    constexpr uint8_t lm = uclass::letter | uclass::mark;
    constexpr uint8_t ps = uclass::punct | uclass::symbol;
    const char32_t c = cp[i];
    const bool next = i + 1 < e;

    // [ascii punct][A-Za-z]+ : greedy letters, nothing follows, so the longest run.
    if (has(i, uclass::ascii_punct) && next && ascii_alpha(cp[i + 1])) {
      size_t j = i + 1;
      while (j < e && ascii_alpha(cp[j])) ++j;
      return j;
    }
    // [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+ : the optional prefix is tried first (greedy ?);
    // without it the run must start at i. Either way the run is the longest one.
    const bool prefix_ok = !has(i, uclass::letter | ps) && !cr_lf(c);
    if (prefix_ok && next && has(i + 1, lm)) return run(i + 1, e, lm);
    if (has(i, lm)) return run(i, e, lm);
    // ' '?[\p{P}\p{S}]+[\r\n]* : the space only when a punct/symbol follows it.
    if (c == ' ' && next && has(i + 1, ps)) {
      size_t j = run(i + 1, e, ps);
      while (j < e && cr_lf(cp[j])) ++j;
      return j;
    }
    if (has(i, ps)) {
      size_t j = run(i, e, ps);
      while (j < e && cr_lf(cp[j])) ++j;
      return j;
    }
    if (!has(i, uclass::space)) return i;
    const size_t w = run(i, e, uclass::space);  // \s* / \s+ greedy: the whole whitespace run
    // \s*[\r\n]+ : \s* backs off from w until [\r\n] can start; the run then stops at the first
    // non-CR/LF, which is the last CR/LF of the whitespace run + 1.
    for (size_t k = w; k > i; --k)
      if (cr_lf(cp[k - 1])) return k;
    // \s+(?!\S) : at the end of the piece the whole run; before a non-space, back off one.
    if (w == e) return w;
    if (w - 1 > i) return w - 1;
    // \s+
    return w;
  }
};

}  // namespace

void deepseek_pre_tokenize(std::string_view text, std::vector<std::string_view>& pieces,
                           pre_tokenizer_scratch& s, regex_whitespace ws) {
  s.cps.clear();
  s.flags.clear();
  s.offs.clear();
  for (size_t i = 0; i < text.size();) {
    const utf8_step st = decode_utf8(text, i);
    s.cps.push_back(st.valid ? st.cp : char32_t(0x110000 + st.cp));  // invalid: no class
    uint8_t f = st.valid ? unicode_class(st.cp) : uint8_t{0};
    // The class table holds ECMAScript \s; Unicode White_Space differs at two code points only.
    if (ws == regex_whitespace::unicode && (st.cp == 0x85 || st.cp == 0xFEFF) && st.valid)
      f = st.cp == 0x85 ? uint8_t(f | uclass::space) : uint8_t(f & ~uclass::space);
    s.flags.push_back(f);
    s.offs.push_back(i);
    i += st.length;
  }
  s.offs.push_back(text.size());

  const splitter sp{s.cps.data(), s.flags.data()};
  auto emit = [&](size_t b, size_t e) { pieces.push_back(text.substr(s.offs[b], s.offs[e] - s.offs[b])); };
  auto stage3 = [&](size_t b, size_t e) {
    split_isolated(b, e, [&](size_t i, size_t end) { return sp.words(i, end); }, emit);
  };
  auto stage2 = [&](size_t b, size_t e) {
    split_isolated(b, e, [&](size_t i, size_t end) { return sp.cjk(i, end); }, stage3);
  };
  split_isolated(0, s.cps.size(), [&](size_t i, size_t end) { return sp.digits(i, end); }, stage2);
}

std::size_t next_safe_cut(std::string_view text, std::size_t from) {
  if (from == 0) from = 1;
  for (std::size_t i = from; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (text[i - 1] == '\n' && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) return i;
  }
  return text.size();
}

std::vector<std::string_view> deepseek_pre_tokenize(std::string_view text, regex_whitespace ws) {
  std::vector<std::string_view> pieces;
  pre_tokenizer_scratch scratch;
  deepseek_pre_tokenize(text, pieces, scratch, ws);
  return pieces;
}

}  // namespace ordo::tokenizer
