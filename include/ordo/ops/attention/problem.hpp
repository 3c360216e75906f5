/// The attention problem: R query rows, each of n_heads heads of head_dim floats, attend over their
/// own list of gathered KV rows (the raw ring's rows, then the selected or all compressed rows, as
/// indices into one KV table; K = V = the row) with a per-head sink logit (ds4-model.md §3.4.2):
///   z_j = τ·(q_h · row_j);  m = max(s_h, max_j z_j);  den = e^(s_h − m) + Σ_j e^(z_j − m);
///   out_h = Σ_j e^(z_j − m)·row_j / den.
/// A list entry < 0 is an invisible row (masked: excluded entirely). Options are scoped enums with
/// name traits, so a spec's name can fold them (DESIGN §3a).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ordo::ops::attention {

/// Whether the kernel checks each list entry for visibility (general: entries < 0 are skipped) or
/// the caller promises that every entry is a visible row (direct: no check; bit-identical to the
/// general kernel on such lists).
enum class visibility { general, direct };

/// How a launch covers a head's history: one warp walks every chunk in order (whole), or the
/// chunks run in parallel and a last phase combines their partials in chunk order (split). Both
/// perform the same float operations in the same sequence, so their bits are identical.
enum class schedule { whole, split };

constexpr std::string_view name_of(visibility v) { return v == visibility::general ? "general" : "direct"; }
constexpr std::string_view name_of(schedule s) { return s == schedule::whole ? "whole" : "split"; }

/// The widest head a lane's registers hold (16 dims per lane of a 32-lane warp); DS4 uses 512.
inline constexpr int max_head_dim = 512;

/// One attention call. Strides are in floats (q, kv, out, workspace) or entries (gather).
struct problem {
  const float* q;                 // [rows][q_stride]: n_heads * head_dim live floats per row
  std::size_t q_stride;           // >= n_heads * head_dim
  const float* kv;                // [n_kv][kv_stride]: the KV table, head_dim live floats per row
  std::size_t kv_stride;          // >= head_dim
  int n_kv;                       // table rows; every visible entry is in 0..n_kv-1
  const std::int32_t* gather;     // [rows][gather_stride]: query row i's list, n_listed[i] entries
  std::size_t gather_stride;      // >= max_listed
  const std::int32_t* n_listed;   // [rows]: entries in each row's list, 0..max_listed
  int max_listed;                 // an upper bound of n_listed (host-known: sizes the split grid)
  const float* sinks;             // [n_heads]: the sink logit of each head
  float scale;                    // τ = 1/sqrt(head_dim) rounded to float
  float* out;                     // [rows][out_stride]
  std::size_t out_stride;         // >= n_heads * head_dim
  float* workspace;               // split only: workspace_floats(*this) floats; else unused
  int n_heads;                    // 64 for DS4
  int head_dim;                   // 512 for DS4, <= max_head_dim
  int rows;                       // live query rows, 1..R; rows >= this are never read or written
};

}  // namespace ordo::ops::attention
