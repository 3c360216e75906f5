// Sequence state over one host arena (include/ordo/runtime/sequence_state.hpp).
#include "ordo/runtime/sequence_state.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace ordo::runtime {

namespace {
std::string str(int64_t v) { return std::to_string(v); }
}  // namespace

compressor_state::compressor_state(const compressor_layout& l, std::byte* base)
    : layout_(&l), kv_(base), score_(base + l.kv.bytes()), rows_(base + l.kv.bytes() + l.score.bytes()) {
  clear();
}

uint64_t compressor_state::ring_slot(int64_t pos) const {
  // Negative positions are the window before the first (ratio 4 reads it as lane A of window 0):
  // the ring's last window, which keeps its initial −inf scores until long after window 0 emits.
  const auto n = static_cast<int64_t>(layout_->kv.rows);
  return static_cast<uint64_t>(((pos % n) + n) % n);
}

float* compressor_state::out_row(int64_t c) {
  return const_cast<float*>(static_cast<const compressor_state*>(this)->out_row(c));
}

const float* compressor_state::out_row(int64_t c) const {
  if (c < 0 || static_cast<uint64_t>(c) >= layout_->rows.rows)
    throw state_error("compressed row " + str(c) + " outside 0.." + str(int64_t(layout_->rows.rows) - 1) +
                      " (ratio " + str(layout_->ratio) + ", context holds " + str(int64_t(layout_->rows.rows)) + " rows)");
  return reinterpret_cast<const float*>(rows_ + uint64_t(c) * layout_->rows.stride);
}

void compressor_state::clear() {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (uint64_t r = 0; r < layout_->kv.rows; ++r) {
    float* kv = row_f32(kv_, layout_->kv, r);
    float* sc = row_f32(score_, layout_->score, r);
    std::fill(kv, kv + layout_->width, 0.0f);
    std::fill(sc, sc + layout_->width, neg_inf);
  }
}

layer_state::layer_state(const layer_state_layout& l, uint32_t slack_rows, uint32_t ctx, std::byte* base)
    : layout_(&l), slack_(slack_rows), ctx_(ctx), raw_(base) {
  std::byte* p = base + l.raw.bytes();
  if (l.attn) attn_.emplace(*l.attn, p), p += l.attn->bytes();
  if (l.indexer) indexer_.emplace(*l.indexer, p);
}

int64_t layer_state::raw_first_visible(int64_t pos) const {
  return std::max<int64_t>(0, pos - int64_t(layout_->window) + 1);
}

void layer_state::check_addressable(int64_t pos, const char* what) const {
  const int64_t lo = raw_first_visible(frontier_), hi = std::min<int64_t>(frontier_ + slack_, ctx_);
  if (pos < lo || pos >= hi)
    throw state_error(std::string(what) + " of position " + str(pos) + " in layer " + str(layout_->layer) +
                      ": addressable now are positions " + str(lo) + ".." + str(hi - 1) + " (frontier " +
                      str(frontier_) + ", window " + str(layout_->window) + ", slack " + str(slack_) + ", context " +
                      str(ctx_) + ")");
}

uint16_t* layer_state::raw_row(int64_t pos) {
  return const_cast<uint16_t*>(static_cast<const layer_state*>(this)->raw_row(pos));
}

const uint16_t* layer_state::raw_row(int64_t pos) const {
  check_addressable(pos, "raw row");
  return reinterpret_cast<const uint16_t*>(raw_ + uint64_t(pos) % layout_->raw.rows * layout_->raw.stride);
}

void layer_state::advance(int64_t n) {
  if (n < 0 || n > slack_ || frontier_ + n > ctx_)
    throw state_error("layer " + str(layout_->layer) + ": cannot advance " + str(n) + " positions from frontier " +
                      str(frontier_) + " (a step holds at most " + str(slack_) + " rows, the context " + str(ctx_) +
                      " positions)");
  frontier_ += n;
  high_water_ = std::max(high_water_, frontier_);
}

void layer_state::rewind_to(int64_t f) {
  if (!can_rewind_to(f))
    throw state_error("layer " + str(layout_->layer) + ": cannot restore frontier " + str(f) + " from " +
                      str(frontier_) + " (rows up to position " + str(high_water_ - 1) + " were written; a restore may go at most " +
                      str(slack_) + " positions below that)");
  frontier_ = f;
}

void layer_state::clear() {
  frontier_ = 0;
  high_water_ = 0;
  if (attn_) attn_->clear();
  if (indexer_) indexer_->clear();
}

sequence_state::sequence_state(sequence_state_layout layout)
    : layout_(std::make_unique<const sequence_state_layout>(std::move(layout))),
      arena_(layout_->bytes(), std::max<uint64_t>(layout_->options.alloc.align, 64), layout_->options.alloc.memory) {
  std::byte* p = arena_.data();
  const uint32_t slack = layout_->options.slack_rows, ctx = layout_->options.ctx;
  layers_.reserve(layout_->layers.size());
  for (const auto& l : layout_->layers) layers_.emplace_back(l, slack, ctx, p), p += l.bytes();
  // The MTP ring counts drafted rows, not positions; a restore undoes drafts like any rows.
  if (layout_->mtp) mtp_.emplace(*layout_->mtp, slack, ctx, p);
}

state_snapshot sequence_state::snapshot() const {
  state_snapshot s;
  for (const auto& l : layers_) s.layers.push_back(l.frontier());
  s.mtp = mtp_ ? mtp_->frontier() : 0;
  return s;
}

void sequence_state::restore(const state_snapshot& s) {
  if (s.layers.size() != layers_.size())
    throw state_error("snapshot of " + str(int64_t(s.layers.size())) + " layers restored into a state of " +
                      str(int64_t(layers_.size())));
  for (std::size_t il = 0; il < layers_.size(); ++il)
    if (!layers_[il].can_rewind_to(s.layers[il])) layers_[il].rewind_to(s.layers[il]);  // throws with numbers
  if (mtp_ && !mtp_->can_rewind_to(s.mtp)) mtp_->rewind_to(s.mtp);
  for (std::size_t il = 0; il < layers_.size(); ++il) layers_[il].rewind_to(s.layers[il]);
  if (mtp_) mtp_->rewind_to(s.mtp);
}

void sequence_state::clear() {
  for (auto& l : layers_) l.clear();
  if (mtp_) mtp_->clear();
}

}  // namespace ordo::runtime
