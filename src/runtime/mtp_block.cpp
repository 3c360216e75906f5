// The MTP block on a session's executor (include/ordo/runtime/mtp_block.hpp).
#include "ordo/runtime/mtp_block.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "ordo/quant/dequant_row.hpp"
#include "ordo/runtime/arena_copy.hpp"

namespace ordo::runtime {

namespace {
const model_weights& with_mtp(const session& s) {
  if (!s.weights().mtp()) throw std::invalid_argument("mtp_block: the model has no MTP block (no mtp.0.* sidecar, no nextn block)");
  return s.weights();
}
}  // namespace

mtp_block::mtp_block(const session& s)
    : s_(&s),
      vectors_(bind_vectors(*with_mtp(s).mtp(), s.options().alloc.memory)),
      globals_(bind_vectors(s.weights().globals(), s.options().alloc.memory)),
      ws_(plan_workspace(s.hparams(), s.options().ctx, s.options().max_tier, s.options().alloc)),
      scratch_(make_step_scratch(s.hparams(), s.options().ctx, s.options().max_tier, s.options().alloc)) {
  at(s.tier_for_chunk(s.options().max_tier));  // resolve (and fail by spec name) now
}

const mtp_block::tier_binding& mtp_block::at(int tier) {
  auto it = tiers_.find(tier);
  if (it == tiers_.end()) {
    const model_weights& kw = s_->kernel_weights();
    tier_binding b;
    b.plan = plan_for(kw, tier, s_->options().order);
    b.plan.fuse_launches = s_->options().fuse_launches;
    b.plan.require_complete();
    b.mixer = bind_mtp_mixer(*b.plan.mtp, *kw.mtp(), vectors_, kw.hparams().n_embd);
    b.head = bind_mtp_head(b.plan, *kw.mtp(), vectors_, globals_);
    it = tiers_.emplace(tier, std::move(b)).first;
  }
  return it->second;
}

void mtp_block::step(layer_state& ring, std::span<const int32_t> tokens, const float* hidden, std::size_t hidden_stride,
                     bool head_last, mtp_outputs& out) {
  s_->with_executor([&](const auto& ex) { run(ex, ring, tokens, hidden, hidden_stride, head_last, out); });
}

template <class Executor>
void mtp_block::run(const Executor& ex, layer_state& ring, std::span<const int32_t> tokens, const float* hidden,
                    std::size_t hidden_stride, bool head_last, mtp_outputs& out) {
  const model::ds4_hparams& h = s_->hparams();
  const model_weights& kw = s_->kernel_weights();
  const std::size_t HC = h.hc_dim(), D = h.n_embd, V = h.n_vocab;
  const weight_view& embd = s_->weights().globals().need(model::ds4_role::token_embd);  // the mapped file's: a host gather
  for (int32_t t : tokens)
    if (t < 0 || uint64_t(t) >= h.n_vocab) throw std::out_of_range("mtp_block: token id " + std::to_string(t));
  out.hidden.resize(tokens.size() * HC);
  const memory_kind kind = ws_.layout().memory;  // the workspace's: host copies or driver copies (arena_copy.hpp)
  out.logits.clear();
  const uint32_t max_tier = std::max<uint32_t>(1, s_->options().max_tier);
  for (std::size_t c0 = 0; c0 < tokens.size(); c0 += max_tier) {
    const std::size_t len = std::min<std::size_t>(max_tier, tokens.size() - c0);
    const int tier = s_->tier_for_chunk(static_cast<uint32_t>(len));
    const tier_binding& tb = at(tier);
    for (std::size_t g0 = 0; g0 < len; g0 += std::size_t(tier)) {
      const int n = static_cast<int>(std::min<std::size_t>(tier, len - g0));
      const std::size_t i0 = c0 + g0;
      ex.sync();  // the host rewrites x_sub, hc_next and the token ids that queued entries may still read
      std::vector<float> x_sub(std::size_t(n) * D);
      for (int i = 0; i < n; ++i)
        quant::dequant_row(static_cast<uint32_t>(embd.format), embd.data + uint64_t(tokens[i0 + i]) * embd.row_bytes,
                           x_sub.data() + std::size_t(i) * D, D);
      copy_rows_in(kind, ws_.row(stage::x_sub, 0), ws_.stride(stage::x_sub), x_sub.data(), D * sizeof(float), D * sizeof(float),
                   std::size_t(n));
      copy_rows_in(kind, ws_.row(stage::hc_next, 0), ws_.stride(stage::hc_next), hidden + i0 * hidden_stride,
                   hidden_stride * sizeof(float), HC * sizeof(float), std::size_t(n));
      // The token ids where every executor's router reads them (the caller's span may be host-only memory).
      std::copy_n(tokens.data() + i0, n, scratch_.tokens.data());
      mtp_mix(tb.plan, ex, ws_, h, tb.mixer, n);
      const block_binding b{&h, &*tb.plan.mtp, kw.mtp(), &vectors_};
      layer_step(tb.plan, ex, ws_, scratch_, ring, b, step_rows{n, ring.frontier(), scratch_.tokens.data(), 1});
#ifndef ORDO_MUTANT_NO_MTP_OUTPUT_SYNC
      ex.sync();  // the host reads the block's output HC rows next
#endif
      copy_rows_out(kind, out.hidden.data() + i0 * HC, HC * sizeof(float), ws_.row(stage::hc, 0), ws_.stride(stage::hc),
                    HC * sizeof(float), std::size_t(n));
    }
  }
  if (head_last && !tokens.empty()) {
    const tier_binding& tb = at(s_->tier_for_chunk(1));
    ex.sync();  // the host rewrites the head's input row
    copy_rows_in(kind, ws_.row(stage::hc, 0), 0, out.hidden.data() + (tokens.size() - 1) * HC, 0, HC * sizeof(float), 1);
    const block_binding b{&h, &tb.head.plan, &kw.globals(), &tb.head.vectors};
    head_step(tb.plan, ex, ws_, b, 1);
    ex.sync();  // the logits are read next
    out.logits.resize(V);
    copy_rows_out(kind, out.logits.data(), 0, ws_.row(stage::logits, 0), 0, V * sizeof(float), 1);
  }
}

}  // namespace ordo::runtime
