/// The router problem: R rows of n_expert router logits (ffn_gate_inp · x, a qmv upstream) become
/// each row's n_used experts and their weights (ds4-model.md §3.5):
///   p_e = sqrt(softplus(logit_e));  selected = top n_used of p_e + bias_e (ties to the lowest id),
///   or tid2eid[token] on hash layers;  w_i = p_{e_i} / max(Σ_i p_{e_i}, floor) · scale.
/// The bias only chooses; weights come from the unbiased p. The sum runs over the selected experts
/// in their output order (rank order, or the table's order on hash layers), as the reference does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ordo::ops::router {

/// How a row's experts are chosen: top-k of the biased scores, or the token's row of tid2eid
/// (the first n_hash_layer layers).
enum class selection { top_k, hash };

/// The selection's name trait (spec/axis_name.hpp finds it by ADL).
constexpr std::string_view ordo_name(selection s) { return s == selection::top_k ? "topk" : "hash"; }

/// The most experts a row may use (DS4 uses 6); per-lane state is sized by it.
inline constexpr int max_used = 8;

struct problem {
  const float* logits;          // [rows][logit_stride]: n_expert logits per row
  std::size_t logit_stride;     // >= n_expert
  const float* bias;            // [n_expert] selection bias (top_k; nullptr: none)
  const std::int32_t* tid2eid;  // [n_tokens][n_used] expert ids per token (hash)
  const std::int32_t* tokens;   // [rows] the input token of each row (hash), each < n_tokens
  int n_tokens;                 // rows of tid2eid (hash)
  std::int32_t* experts;        // [rows][out_stride] selected expert ids, in output order
  float* weights;               // [rows][out_stride] their weights
  std::size_t out_stride;       // >= n_used
  int n_expert;                 // 256
  int n_used;                   // 6, <= max_used and <= n_expert
  int rows;                     // live rows, 1..R
  float scale;                  // expert_weights_scale, 1.5
  float sum_floor;              // 6.103515625e-5: the floor of Σ p over the selected experts
};

/// Whether a problem fits spec (R, S): rows within the tier, n_used experts that fit, a table to hash with.
template <int R, selection S>
constexpr bool fits(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_used < 1 || p.n_used > max_used || p.n_used > p.n_expert) return false;
  if (p.logit_stride < std::size_t(p.n_expert) || p.out_stride < std::size_t(p.n_used)) return false;
  if constexpr (S == selection::hash) return p.tid2eid != nullptr && p.tokens != nullptr && p.n_tokens > 0;
  return true;
}

}  // namespace ordo::ops::router
