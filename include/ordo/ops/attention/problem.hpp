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

#include "ordo/order/orders.hpp"

namespace ordo::ops::attention {

/// An attention Order (attention.hpp states it in full): q·k by order::lane_strided, the history
/// in chunks of Chunk list entries.
template <int Chunk>
struct kv_chunked {
  static_assert(Chunk >= 1);
  static constexpr int chunk = Chunk;
  using dot_order = order::lane_strided;
  static constexpr std::string_view name = Chunk == 64 ? "kv64" : Chunk == 32 ? "kv32" : "kv?";
};

/// Whether the kernel checks each list entry for visibility (general: entries < 0 are skipped) or
/// the caller promises that every entry is a visible row (direct: no check; bit-identical to the
/// general kernel on such lists).
enum class visibility { general, direct };

/// How a launch covers a head's history: one warp walks every chunk in order (whole), or the
/// chunks run in parallel and a last phase combines their partials in chunk order (split). Both
/// perform the same float operations in the same sequence, so their bits are identical.
enum class schedule { whole, split };

/// The options' name traits (spec/axis_name.hpp finds them by ADL).
constexpr std::string_view ordo_name(visibility v) { return v == visibility::general ? "general" : "direct"; }
constexpr std::string_view ordo_name(schedule s) { return s == schedule::whole ? "whole" : "split"; }

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

/// Chunks of a list of n entries under Order.
template <class Order>
constexpr int chunks_of(int n) {
  return (n + Order::chunk - 1) / Order::chunk;
}

/// The split schedule's workspace: per (row, head, chunk) the chunk max, den_c and acc_c[head_dim].
template <class Order>
constexpr std::size_t workspace_floats(const problem& p) {
  return std::size_t(p.rows) * std::size_t(p.n_heads) * std::size_t(chunks_of<Order>(p.max_listed)) *
         (2 + std::size_t(p.head_dim));
}

/// Whether a problem fits spec (R, S): rows within the tier, heads the lanes can hold, strides.
template <int R, schedule S>
constexpr bool fits(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_heads < 1 || p.head_dim < 1 || p.head_dim > max_head_dim) return false;
  const std::size_t width = std::size_t(p.n_heads) * std::size_t(p.head_dim);
  if (p.q_stride < width || p.out_stride < width || p.kv_stride < std::size_t(p.head_dim)) return false;
  if (p.max_listed < 0 || p.gather_stride < std::size_t(p.max_listed)) return false;
  if constexpr (S == schedule::split) return p.workspace != nullptr;
  return true;
}

}  // namespace ordo::ops::attention
