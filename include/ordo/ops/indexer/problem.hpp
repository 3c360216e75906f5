/// The indexer problem (ds4-model.md §3.4.8, ratio-4 layers): R query rows, each with its indexer
/// queries (n_heads × head_dim, after RoPE; a qmv upstream) and head weights (proj·x, a qmv
/// upstream), score every visible compressed key row and select the top k:
///   q'_h = fp4(hadamard(q_h));  w'_h = w_h · weight_scale;
///   score[c] = Σ_h relu(key_c · q'_h) · w'_h   (h ascending);
///   selected = top k of score over keys 0..n_visible−1 (ties to the lowest id), ids ascending.
/// The key rows are already Hadamard + FP4 round-tripped (the indexer compressor's output).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ordo::ops::indexer {

/// An indexer Order: q·key by DotOrder, heads summed in ascending order.
template <class DotOrder>
struct score_order {
  using dot_order = DotOrder;
  static constexpr std::string_view name = DotOrder::name;
};

/// How the top-k is found: flat rounds over every visible key, hierarchical (each block's
/// survivors first; select.hpp shows it is the same selection), or radix (histograms of the
/// scores' rank keys find the k-th, a CTA per row; select_radix.hpp: the same selection again).
enum class selector { flat, hierarchical, radix };

/// The selector's name trait (spec/axis_name.hpp finds it by ADL).
constexpr std::string_view ordo_name(selector s) {
  return s == selector::flat ? "flat" : s == selector::hierarchical ? "hier" : "radix";
}

/// Keys per block of the hierarchical selector (a fixed part of the selector, not of the data).
inline constexpr int hierarchical_block = 1024;

/// The widest indexer head (DS4: 128); Hadamard needs a power of two.
inline constexpr int max_head_dim = 128;

struct problem {
  const float* q;                // [rows][q_stride]: n_heads * head_dim queries per row
  std::size_t q_stride;          // >= n_heads * head_dim
  const float* head_weights;     // [rows][w_stride]: n_heads weights per row
  std::size_t w_stride;          // >= n_heads
  float weight_scale;            // 1/sqrt(head_dim * n_heads) rounded to float
  const float* keys;             // [n_keys][key_stride]: head_dim floats per compressed row
  std::size_t key_stride;        // >= head_dim
  int n_keys;                    // rows of the key table
  const std::int32_t* n_visible; // [rows]: keys 0..n_visible-1 are visible to the row (<= n_keys)
  int top_k;                     // 512 for DS4
  std::int32_t* selected;        // [rows][sel_stride]: min(top_k, n_visible) ids, ascending
  std::size_t sel_stride;        // >= top_k
  std::int32_t* n_selected;      // [rows]
  float* scores;                 // [rows][score_stride]: the score of every visible key (written)
  std::size_t score_stride;      // >= n_keys
  float* q_fp4;                  // workspace [rows][n_heads * head_dim]: the transformed queries
  std::int32_t* survivors;       // hierarchical workspace [rows][survivor_stride]
  std::size_t survivor_stride;   // >= survivor_capacity(*this)
  int n_heads;                   // 64 for DS4
  int head_dim;                  // 128 for DS4: a power of two <= max_head_dim
  int rows;                      // live rows, 1..R
};

/// The hierarchical workspace one row needs: every block's survivors (top_k at most each).
constexpr std::size_t survivor_capacity(const problem& p) {
  return std::size_t((p.n_keys + hierarchical_block - 1) / hierarchical_block) * std::size_t(p.top_k);
}

constexpr bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

/// Whether a problem fits spec (R, S): rows within the tier, a head the Hadamard and the lanes
/// take, strides, and the workspaces.
template <int R, selector S>
constexpr bool fits(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_heads < 1 || !power_of_two(p.head_dim) || p.head_dim > max_head_dim) return false;
  if (p.top_k < 1 || p.sel_stride < std::size_t(p.top_k) || p.score_stride < std::size_t(p.n_keys)) return false;
  if (p.q_stride < std::size_t(p.n_heads) * std::size_t(p.head_dim) || p.w_stride < std::size_t(p.n_heads)) return false;
  if (p.key_stride < std::size_t(p.head_dim) || p.q_fp4 == nullptr || p.scores == nullptr) return false;
  if constexpr (S == selector::hierarchical) return p.survivors != nullptr && p.survivor_stride >= survivor_capacity(p);
  return true;
}

}  // namespace ordo::ops::indexer
