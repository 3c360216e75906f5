// The speculative target on the CPU engine (include/ordo/runtime/speculative.hpp): a session for
// the target, an mtp_block on the session's MTP ring.
#include <stdexcept>

#include "ordo/runtime/speculative.hpp"

namespace ordo::runtime {

namespace {

class cpu_target final : public speculative_target {
 public:
  cpu_target(const model_weights& w, session& s, const session_options& o)
      : w_(&w), s_(&s), mtp_(w, mtp_options{o.ctx, o.max_tier, o.order, o.alloc, [&s](uint32_t n) { return s.tier_for_chunk(n); }}) {
    if (!s.state().mtp()) throw std::invalid_argument("speculative target: the sequence state has no MTP ring");
  }
  uint32_t n_vocab() const override { return w_->hparams().n_vocab; }
  std::size_t hc_dim() const override { return w_->hparams().hc_dim(); }
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
  const model_weights* w_;
  session* s_;
  mtp_block mtp_;
};

}  // namespace

std::unique_ptr<speculative_target> make_cpu_target(const model_weights& w, session& s, const session_options& o) {
  return std::make_unique<cpu_target>(w, s, o);
}

}  // namespace ordo::runtime
