/// The sampling problem: R rows of n_vocab logits become one token id per row.
///
/// mode greedy: argmax with ties to the lowest id (ds4-model.md §11.4, "T <= 0 → argmax (first max
/// index)"). A NaN logit ranks below every number, so a row's token does not depend on the order in
/// which a backend scans it.
///
/// mode sample (DESIGN §6, docs/decisions.md "sampling"): the filters, in this order, over the
/// tokens ranked by ranks_before (larger logit first, ties to the lower id):
///   1. top-k: keep the k best ranked tokens (k = 0 or k >= n_vocab: all);
///   2. temperature: weights w = exp((z − z_max) / T), so the best token weighs exactly 1;
///   3. top-p: keep the shortest ranked prefix of the top-k set whose weight reaches top_p × the
///      top-k set's weight (the token that crosses is kept; top_p = 1: all);
///   4. min-p: keep tokens with w >= min_p (relative to the best token's weight 1; 0: all);
/// then draw one kept token with probability proportional to w, from the uniform of Philox keyed by
/// (seed, position). T <= 0 is greedy: the same token as mode greedy. A row whose best logit is not
/// finite (all NaN, all −inf, or a +inf) is sampled greedily too. NaN and −inf logits are never
/// drawn. Every float sum has one order that depends only on n_vocab (body.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ordo::ops::sampling {

/// How a row's token is chosen.
enum class mode { greedy, sample };

/// The mode's name trait (spec/axis_name.hpp finds it by ADL).
constexpr std::string_view ordo_name(mode m) { return m == mode::greedy ? "greedy" : "sample"; }

/// The sampler's settings, shared by every row of a pass (mode sample only).
struct settings {
  float temperature = 0.0f;  // <= 0: greedy; finite
  int top_k = 0;             // >= 0; 0: off
  float top_p = 1.0f;        // in (0, 1]; 1: off
  float min_p = 0.0f;        // in [0, 1]; 0: off
  std::uint64_t seed = 0;
};

struct problem {
  const float* logits;       // [rows][logit_stride]: n_vocab logits per row
  std::size_t logit_stride;  // >= n_vocab
  std::int32_t* tokens;      // [rows] the chosen token of each row
  int n_vocab;               // 129280 for DS4
  int rows;                  // live rows, 1..R
  settings sampler{};        // mode sample only
  const std::uint64_t* positions = nullptr;  // [rows] each row's token position (mode sample only)
};

/// The settings mode sample accepts (above): NaN and infinities are refused, not guessed.
constexpr bool valid(const settings& s) {
  const bool t_ok = s.temperature == s.temperature && s.temperature < 3.4e38f && s.temperature > -3.4e38f;
  return t_ok && s.top_k >= 0 && s.top_p > 0.0f && s.top_p <= 1.0f && s.min_p >= 0.0f && s.min_p <= 1.0f;
}

/// Whether a problem fits spec (R, M): rows within the tier, a stride that holds a row, somewhere
/// to write; mode sample also needs each row's position and valid settings.
template <int R, mode M>
constexpr bool fits(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_vocab < 1 || p.logit_stride < std::size_t(p.n_vocab) || !p.tokens) return false;
  return M == mode::greedy || (p.positions && valid(p.sampler));
}

}  // namespace ordo::ops::sampling
