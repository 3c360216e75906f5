/// The shape of one sequence's state (DESIGN §6, ds4-model.md §6), computed from the
/// hyperparameters and the context length before anything is allocated, so the memory plan and
/// the allocation use the same numbers. Per layer:
///   raw ring      [raw_cap][head_dim] f16   every layer; the model stores raw rows F16-rounded,
///                                           the first head_dim − n_rot dims FP8-simulated
///                                           (fake quant), so F16 bits hold them losslessly
///   compressor    kv, score [ring_windows·ratio][W] f32, W = coff·d (coff 2 for ratio 4)
///   compressed    [ctx / ratio][d] f32      ratio != 0 (d = head_dim), FP8-simulated nope dims
///   indexer       compressor [ring][2·indexer_dim] f32 + rows [ctx / 4][indexer_dim] f32 (ratio 4)
/// plus the MTP block's raw ring. Every buffer is indexed by absolute position (raw rows,
/// compressor rows) or absolute row number (compressed rows), so the only mutable counters are
/// the per-layer frontiers: restoring a frontier undoes every row appended after it, provided the
/// rings are deep enough that those rows overwrote nothing still visible. `slack_rows` is that
/// depth: the most rows a step writes ahead of its per-row phase (a batched projection over a
/// chunk) and the most rows a restore may undo (speculation). The rings are sized so that any
/// `slack_rows` positions past a frontier never overwrite a row visible at that frontier:
///   raw ring: rows [f − window + 1, f) visible  → raw_cap ≥ window + slack_rows
///   ratio 4:  windows w−1 and w (w = f / 4) live → ring rows ≥ slack_rows + 7 (whole windows)
///   ratio 128: window w live                    → ring rows ≥ slack_rows + 127 (whole windows)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ordo/model/ds4_hparams.hpp"
#include "ordo/runtime/row_layout.hpp"

namespace ordo::runtime {

struct state_options {
  uint32_t ctx = 4096;        // positions a sequence may hold: 0 .. ctx-1
  uint32_t slack_rows = 16;   // see the header comment; at least the largest tier
  alloc_policy alloc;
};

/// One compressor: its window ring and its output rows.
struct compressor_layout {
  uint32_t ratio = 0;         // 4 or 128
  uint32_t out_width = 0;     // d: width of an emitted row (head_dim or indexer_dim)
  uint32_t width = 0;         // W = coff·d: width of a projected kv / score row
  uint32_t ring_windows = 0;  // windows the ring holds; ring rows = ring_windows · ratio
  row_layout kv;              // [ring_windows·ratio][W] f32, init 0
  row_layout score;           // [ring_windows·ratio][W] f32, init −inf
  row_layout rows;            // [ctx / ratio][d] f32: emitted rows, append-only
  uint64_t bytes() const { return kv.bytes() + score.bytes() + rows.bytes(); }
};

struct layer_state_layout {
  uint32_t layer = 0;         // main layer index, or n_layer for the MTP block
  uint32_t ratio = 0;
  uint32_t window = 0;        // sliding window (visible raw rows, the token's own included)
  row_layout raw;             // [raw_cap][head_dim] f16
  std::optional<compressor_layout> attn;     // ratio != 0
  std::optional<compressor_layout> indexer;  // ratio == 4
  uint64_t bytes() const {
    return raw.bytes() + (attn ? attn->bytes() : 0) + (indexer ? indexer->bytes() : 0);
  }
};

struct sequence_state_layout {
  state_options options;
  std::vector<layer_state_layout> layers;   // [n_layer]
  std::optional<layer_state_layout> mtp;    // when hparams.n_mtp == 1: a window-only ring
  uint64_t bytes() const;
  /// Bytes by kind, for reports: raw rings (main layers), compressed attention rows, compressor
  /// rings (attention and indexer), indexer rows, the MTP ring.
  struct breakdown {
    uint64_t raw = 0, compressed = 0, compressor = 0, indexer_rows = 0, mtp = 0;
  };
  breakdown by_kind() const;
};

/// Lookback of a compressor: positions before the frontier whose rows are still read.
inline constexpr uint32_t compressor_lookback(uint32_t ratio) { return ratio == 4 ? 2 * ratio - 1 : ratio - 1; }

/// The layout of one sequence's state. Throws model::ds4_error when ctx is 0 or exceeds the
/// model's context_length, or slack_rows is 0.
sequence_state_layout plan_sequence_state(const model::ds4_hparams& h, const state_options& o);

}  // namespace ordo::runtime
