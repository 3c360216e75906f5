// The speculative target on a session (include/ordo/runtime/speculative.hpp): the session for
// the target, an mtp_block bound to it on its MTP ring — on whichever executor the session runs.
#include <stdexcept>

#include "ordo/runtime/speculative.hpp"

namespace ordo::runtime {

namespace {

class session_target final : public speculative_target {
 public:
  explicit session_target(session& s) : s_(&s), mtp_(s) {
    if (!s.state().mtp()) throw std::invalid_argument("speculative target: the sequence state has no MTP ring");
  }
  uint32_t n_vocab() const override { return s_->hparams().n_vocab; }
  std::size_t hc_dim() const override { return s_->hparams().hc_dim(); }
  int64_t position() const override { return s_->position(); }
  int64_t context() const override { return s_->state().layout().options.ctx; }
  int max_verify_rows() const override {
    int k = 1;  // the largest k whose chunk runs at a tier of exactly k rows (session::verify)
    for (uint32_t n = 1; n <= s_->state().layout().options.slack_rows; ++n)
      if (s_->tier_for_chunk(n) == int(n)) k = int(n);
      else break;
    return k;
  }
  std::vector<float> feed(std::span<const int32_t> tokens, uint32_t chunk, row_outputs& rows) override {
    rows.every_logits = false;
    return s_->prefill(tokens, chunk, &rows);
  }
  row_outputs verify(std::span<const int32_t> tokens) override { return s_->verify(tokens); }
  // Rewinds move frontiers (host counters) only; every step of the session and of the MTP block
  // ends with a sync, so no queued entry reads the state while they move.
  void rewind(int64_t position) override {
    state_snapshot snap = s_->state().snapshot();
    for (auto& f : snap.layers) f = position;
    s_->state().restore(snap);
  }
  int64_t mtp_rows() const override { return s_->state().snapshot().mtp; }
  void mtp_step(std::span<const int32_t> tokens, const float* hidden, std::size_t stride, bool head_last,
                mtp_outputs& out) override {
    mtp_.step(*s_->state().mtp(), tokens, hidden, stride, head_last, out);
  }
  void mtp_rewind(int64_t rows) override {
    state_snapshot snap = s_->state().snapshot();
    snap.mtp = rows;
    s_->state().restore(snap);
  }

 private:
  session* s_;
  mtp_block mtp_;
};

}  // namespace

std::unique_ptr<speculative_target> make_session_target(session& s) { return std::make_unique<session_target>(s); }

}  // namespace ordo::runtime
