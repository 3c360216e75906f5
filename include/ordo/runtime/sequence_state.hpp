/// One sequence's state, allocated from a sequence_state_layout (state_layout.hpp): per layer the
/// raw KV ring, the compressor rings, the compressed rows and the indexer rows, plus the MTP
/// block's ring. All rows are addressed by absolute position (or absolute compressed-row number);
/// a layer's only counter is its frontier, the number of positions it has consumed. A layer step
/// over rows at positions f..f+n−1 (n ≤ slack_rows) writes their rows ahead (batched stages),
/// runs its per-row phase in order reading them, then `advance(n)`.
///
/// `snapshot()` captures every frontier; `restore(s)` sets them back, which undoes every row
/// appended after the snapshot (rows past a frontier are invisible and are rewritten before they
/// are read again). It refuses, with the numbers, to undo more than slack_rows rows of any layer:
/// the ring would have overwritten rows the restored frontier can see.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "ordo/runtime/state_layout.hpp"

namespace ordo::runtime {

/// Every state failure: a position outside what is addressable now, a restore too deep.
class state_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A compressor's ring and output rows (views into the sequence's arena).
class compressor_state {
 public:
  compressor_state(const compressor_layout& l, std::byte* base);
  const compressor_layout& layout() const { return *layout_; }
  /// The projected kv / score row of position `pos` ([W] floats).
  float* kv_row(int64_t pos) { return row_f32(kv_, layout_->kv, ring_slot(pos)); }
  float* score_row(int64_t pos) { return row_f32(score_, layout_->score, ring_slot(pos)); }
  const float* kv_row(int64_t pos) const { return row_f32(kv_, layout_->kv, ring_slot(pos)); }
  const float* score_row(int64_t pos) const { return row_f32(score_, layout_->score, ring_slot(pos)); }
  /// Emitted row `c` ([d] floats): pools the window of positions c·ratio .. c·ratio+ratio−1.
  float* out_row(int64_t c);
  const float* out_row(int64_t c) const;
  /// Rows emitted once `frontier` positions are consumed (floor(frontier / ratio)).
  int64_t rows_at(int64_t frontier) const { return frontier / layout_->ratio; }
  /// Writes the initial ring contents (kv 0, score −inf).
  void clear();
  /// The ring's slot 0 (slot s at + s·kv.stride bytes) and emitted row 0, for the families'
  /// problems, which address slots and rows themselves (position mod ring rows, row number).
  float* kv_base() { return reinterpret_cast<float*>(kv_); }
  float* score_base() { return reinterpret_cast<float*>(score_); }
  float* rows_base() { return reinterpret_cast<float*>(rows_); }

 private:
  uint64_t ring_slot(int64_t pos) const;
  static float* row_f32(std::byte* base, const row_layout& l, uint64_t r) {
    return reinterpret_cast<float*>(base + r * l.stride);
  }
  static const float* row_f32(const std::byte* base, const row_layout& l, uint64_t r) {
    return reinterpret_cast<const float*>(base + r * l.stride);
  }
  const compressor_layout* layout_;
  std::byte* kv_;
  std::byte* score_;
  std::byte* rows_;
};

class layer_state {
 public:
  layer_state(const layer_state_layout& l, uint32_t slack_rows, uint32_t ctx, std::byte* base);
  const layer_state_layout& layout() const { return *layout_; }
  /// Positions consumed (main layers: the next token's position; MTP: rows appended).
  int64_t frontier() const { return frontier_; }
  /// The furthest frontier reached since the last clear (rows up to it may have been written).
  int64_t high_water() const { return high_water_; }
  /// F16 bits of the raw row of position `pos` ([head_dim]). Addressable: the visible window
  /// [frontier − window + 1, frontier) and the rows a step writes ahead [frontier, frontier+slack).
  uint16_t* raw_row(int64_t pos);
  const uint16_t* raw_row(int64_t pos) const;
  /// First position the token at `pos` sees in the raw window.
  int64_t raw_first_visible(int64_t pos) const;
  /// Slot 0 of the raw ring (the kv_store problem writes slot p mod rows itself).
  uint16_t* raw_base() { return reinterpret_cast<uint16_t*>(raw_); }
  compressor_state* attn() { return attn_ ? &*attn_ : nullptr; }
  compressor_state* indexer() { return indexer_ ? &*indexer_ : nullptr; }
  const compressor_state* attn() const { return attn_ ? &*attn_ : nullptr; }
  const compressor_state* indexer() const { return indexer_ ? &*indexer_ : nullptr; }
  /// Commits n positions (after their rows were written). Throws past ctx.
  void advance(int64_t n);
  /// Whether rewind_to(f) is allowed: f ≤ frontier and high_water − f ≤ slack_rows.
  bool can_rewind_to(int64_t f) const { return f >= 0 && f <= frontier_ && high_water_ - f <= slack_; }
  /// Sets the frontier back to `f`; throws state_error with the numbers unless can_rewind_to(f).
  void rewind_to(int64_t f);
  void clear();

 private:
  void check_addressable(int64_t pos, const char* what) const;
  const layer_state_layout* layout_;
  uint32_t slack_;
  uint32_t ctx_;
  std::byte* raw_;
  std::optional<compressor_state> attn_, indexer_;
  int64_t frontier_ = 0;
  int64_t high_water_ = 0;
};

/// The frontiers of every layer and of the MTP ring.
struct state_snapshot {
  std::vector<int64_t> layers;
  int64_t mtp = 0;
  bool operator==(const state_snapshot&) const = default;
};

class sequence_state {
 public:
  explicit sequence_state(sequence_state_layout layout);
  sequence_state(sequence_state&&) = default;
  const sequence_state_layout& layout() const { return *layout_; }
  std::size_t n_layer() const { return layers_.size(); }
  layer_state& layer(std::size_t il) { return layers_.at(il); }
  const layer_state& layer(std::size_t il) const { return layers_.at(il); }
  layer_state* mtp() { return mtp_ ? &*mtp_ : nullptr; }
  state_snapshot snapshot() const;
  /// Undoes every row appended after `s` (see the header comment). All-or-nothing: when any layer
  /// cannot rewind, nothing changes and state_error names the layer and the numbers.
  void restore(const state_snapshot& s);
  /// Back to an empty sequence.
  void clear();
  uint64_t bytes() const { return arena_.size(); }
  /// The whole arena (E3 tests compare the state byte for byte).
  const std::byte* data() const { return arena_.data(); }

 private:
  // Held by pointer: the layer states point into it, and a sequence_state must stay movable.
  std::unique_ptr<const sequence_state_layout> layout_;
  memory_arena arena_;
  std::vector<layer_state> layers_;
  std::optional<layer_state> mtp_;
};

}  // namespace ordo::runtime
