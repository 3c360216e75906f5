/// The compressor problems (ds4-model.md §3.4.6, docs/engine.md H3–H4, C3, C11). The ring holds,
/// per position p, the projected kv row and its gate-score row (width W = coff·d: 2d on ratio-4
/// layers, d on ratio-128 ones) at slot p mod ring_rows; unwritten rows hold kv 0, score −inf.
///   store: R rows at consecutive positions first_position + i write kv_t and sc_t + ape[p mod ratio]
///          into their slots (the compressor's state update, per row);
///   emit:  at a position p with (p + 1) mod ratio = 0, each column j is pooled by a softmax over the
///          window's scores (ratio 128: the 128 rows p−127..p; ratio 4: lane A, columns 0..d−1 of
///          rows p−7..p−4, then lane B, columns d..2d−1 of rows p−3..p), the pooled row is RMS-normed
///          with the compressor norm, tail-RoPE'd at the window start p + 1 − ratio and FP8-simulated
///          on its first d − n_rot dims: the compressed row (p + 1) / ratio − 1 (f32, not F16-rounded);
///          the indexer emission (ratio 4, d = indexer_dim 128) ends with the Hadamard + FP4 round
///          trip of the whole row instead: the indexer row (p + 1) / 4 − 1.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ordo::ops::compressor {

/// The pooling geometry of a compressed layer.
enum class ratio { r4, r128 };

/// The ratio's name trait (spec/axis_name.hpp finds it by ADL).
constexpr std::string_view ordo_name(ratio r) { return r == ratio::r4 ? "ratio4" : "ratio128"; }

/// Which compressed rows an emission writes (ds4-model.md §3.4.6): attention rows (FP8 round trip
/// of the first d − n_rot dims, kv_store's) or, on ratio-4 layers, indexer rows (the indexer's
/// Hadamard + FP4 round trip of all d dims, §3.4.8). The pooling, norm and RoPE are the same.
enum class emitted { attention, indexer };

/// The emitted rows' name trait.
constexpr std::string_view ordo_name(emitted e) { return e == emitted::attention ? "attn" : "indexer"; }
constexpr int ratio_of(ratio r) { return r == ratio::r4 ? 4 : 128; }
/// W / d: ratio-4 rows carry two projection halves (lane A for the next window, lane B for this one).
constexpr int coff_of(ratio r) { return r == ratio::r4 ? 2 : 1; }
/// Window entries a column is pooled over: 8 (4 of lane A, 4 of lane B) or 128.
constexpr int entries_of(ratio r) { return r == ratio::r4 ? 8 : 128; }

/// The ring slot of position p (p may be negative: window −1 of a ratio-4 layer is the ring's
/// last window, at its initial −inf scores).
inline constexpr std::int64_t slot_of(std::int64_t p, std::int64_t ring_rows) { return ((p % ring_rows) + ring_rows) % ring_rows; }

struct store_problem {
  const float* kv;              // [rows][in_stride]: W floats, wkv · x (a qmv upstream)
  const float* score;           // [rows][in_stride]: W floats, wgate · x
  std::size_t in_stride;        // >= width
  const float* ape;             // [ratio][width]: the absolute position bias, row p mod ratio
  float* kv_ring;               // [ring_rows][ring_stride]
  float* score_ring;            // [ring_rows][ring_stride]
  std::size_t ring_stride;      // >= width
  std::int64_t ring_rows;       // a multiple of ratio, >= rows (a pass never wraps onto its own rows)
  std::int64_t first_position;  // position of row 0, >= 0
  int width;                    // W = coff · d
  int rows;                     // live rows, 1..R
};

struct emit_problem {
  const float* kv_ring;         // [ring_rows][ring_stride], as store writes it
  const float* score_ring;      // [ring_rows][ring_stride]
  std::size_t ring_stride;      // >= coff · d
  std::int64_t ring_rows;       // a multiple of ratio, >= 2 · ratio for ratio 4 (windows w − 1 and w)
  std::int64_t position;        // p, with (p + 1) mod ratio = 0
  const float* norm;            // [d] attn_compressor_norm
  float eps;                    // 1e-6
  const float* cos_sin;         // [n_rot]: the (cos θ_k, sin θ_k) pairs of position p + 1 − ratio (rope/table.hpp)
  int n_rot;                    // 64: the RoPE tail; the FP8 part is dims 0..d − n_rot − 1
  float* out;                   // [d] the compressed row
  int d;                        // 512
};

/// Whether a store problem fits spec (R, Ra): rows within the tier, a ring of whole windows that
/// holds a pass without wrapping onto its own rows, strides that hold a row.
template <int R, ratio Ra>
constexpr bool fits(const store_problem& p) {
  if (p.rows < 1 || p.rows > R || p.width < 1 || p.first_position < 0) return false;
  if (p.ring_rows < p.rows || p.ring_rows % ratio_of(Ra) != 0) return false;
  return p.kv && p.score && p.ape && p.kv_ring && p.score_ring && p.in_stride >= std::size_t(p.width) &&
         p.ring_stride >= std::size_t(p.width);
}

/// Whether an emit problem fits spec (Ra, E): a complete window, a ring that holds windows w − 1
/// and w, a RoPE tail that fits; the indexer's Hadamard needs a power-of-two row.
template <ratio Ra, emitted E>
constexpr bool fits(const emit_problem& p) {
  const int r = ratio_of(Ra);
  if constexpr (E == emitted::indexer)
    if (Ra != ratio::r4 || p.d < 1 || (p.d & (p.d - 1)) != 0) return false;
  if (p.d < 1 || p.n_rot < 0 || p.n_rot % 2 != 0 || p.n_rot > p.d) return false;
  if (p.position < r - 1 || (p.position + 1) % r != 0) return false;
  if (p.ring_rows % r != 0 || p.ring_rows < (Ra == ratio::r4 ? 2 * r : r)) return false;
  return p.kv_ring && p.score_ring && p.norm && p.out && (p.n_rot == 0 || p.cos_sin) &&
         p.ring_stride >= std::size_t(coff_of(Ra)) * std::size_t(p.d);
}

}  // namespace ordo::ops::compressor
