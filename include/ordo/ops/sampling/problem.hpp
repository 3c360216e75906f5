/// The sampling problem: R rows of n_vocab logits become one token id per row. This part of the
/// family is greedy decoding: argmax with ties to the lowest id (ds4-model.md §11.4, "T <= 0 →
/// argmax (first max index)"). A NaN logit ranks below every number, so a row's token does not
/// depend on the order in which a backend scans it. Temperature / top-k / top-p / min-p sampling
/// with the counter-based RNG (DESIGN §6) is the next option of this family.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ordo::ops::sampling {

/// How a row's token is chosen. Only greedy exists so far.
enum class mode { greedy };

constexpr std::string_view name_of(mode) { return "greedy"; }

struct problem {
  const float* logits;       // [rows][logit_stride]: n_vocab logits per row
  std::size_t logit_stride;  // >= n_vocab
  std::int32_t* tokens;      // [rows] the chosen token of each row
  int n_vocab;               // 129280 for DS4
  int rows;                  // live rows, 1..R
};

}  // namespace ordo::ops::sampling
