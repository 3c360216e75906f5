// The MTP block on the CPU executor (include/ordo/runtime/mtp_block.hpp).
#include "ordo/runtime/mtp_block.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "ordo/quant/dequant_row.hpp"

namespace ordo::runtime {

mtp_block::mtp_block(const model_weights& w, mtp_options o)
    : w_(&w),
      o_(std::move(o)),
      ws_(plan_workspace(w.hparams(), o_.ctx, o_.max_tier, o_.alloc)),
      scratch_(make_step_scratch(w.hparams(), o_.ctx, o_.max_tier)) {
  if (!w.mtp()) throw std::invalid_argument("mtp_block: the model has no MTP block (no mtp.0.* sidecar, no nextn block)");
  if (!o_.tier_for) throw std::invalid_argument("mtp_block: no tier_for");
  vectors_ = bind_vectors(*w.mtp());
  globals_ = bind_vectors(w.globals());
  at(o_.tier_for(o_.max_tier));  // resolve (and fail by spec name) now
}

const mtp_block::tier_binding& mtp_block::at(int tier) {
  auto it = tiers_.find(tier);
  if (it == tiers_.end()) {
    tier_binding b;
    b.plan = plan_for(*w_, tier, o_.order);
    b.plan.require_complete();
    b.mixer = bind_mtp_mixer(*b.plan.mtp, *w_->mtp(), vectors_, w_->hparams().n_embd);
    b.head = bind_mtp_head(b.plan, *w_->mtp(), vectors_, globals_);
    it = tiers_.emplace(tier, std::move(b)).first;
  }
  return it->second;
}

void mtp_block::step(layer_state& ring, std::span<const int32_t> tokens, const float* hidden, std::size_t hidden_stride,
                     bool head_last, mtp_outputs& out) {
  const model::ds4_hparams& h = w_->hparams();
  const std::size_t HC = h.hc_dim(), D = h.n_embd, V = h.n_vocab;
  const weight_view& embd = w_->globals().need(model::ds4_role::token_embd);
  out.hidden.resize(tokens.size() * HC);
  out.logits.clear();
  const uint32_t chunk = std::max<uint32_t>(1, o_.max_tier);
  for (std::size_t c0 = 0; c0 < tokens.size(); c0 += chunk) {
    const std::size_t len = std::min<std::size_t>(chunk, tokens.size() - c0);
    const int tier = o_.tier_for(static_cast<uint32_t>(len));
    const tier_binding& tb = at(tier);
    for (std::size_t g0 = 0; g0 < len; g0 += std::size_t(tier)) {
      const int n = static_cast<int>(std::min<std::size_t>(tier, len - g0));
      const std::size_t i0 = c0 + g0;
      for (int i = 0; i < n; ++i) {
        const int32_t t = tokens[i0 + i];
        if (t < 0 || uint64_t(t) >= h.n_vocab) throw std::out_of_range("mtp_block: token id " + std::to_string(t));
        quant::dequant_row(static_cast<uint32_t>(embd.format), embd.data + uint64_t(t) * embd.row_bytes,
                           ws_.row_as<float>(stage::x_sub, uint32_t(i)), D);
        std::memcpy(ws_.row_as<float>(stage::hc_next, uint32_t(i)), hidden + (i0 + i) * hidden_stride, HC * sizeof(float));
      }
      mtp_mix(tb.plan, ex_, ws_, h, tb.mixer, n);
      const block_binding b{&h, &*tb.plan.mtp, w_->mtp(), &vectors_};
      layer_step(tb.plan, ex_, ws_, scratch_, ring, b, step_rows{n, ring.frontier(), tokens.data() + i0, 1});
      for (int i = 0; i < n; ++i)
        std::memcpy(out.hidden.data() + (i0 + i) * HC, ws_.row_as<float>(stage::hc, uint32_t(i)), HC * sizeof(float));
    }
  }
  if (head_last && !tokens.empty()) {
    const int tier = o_.tier_for(1);
    const tier_binding& tb = at(tier);
    std::memcpy(ws_.row_as<float>(stage::hc, 0), out.hidden.data() + (tokens.size() - 1) * HC, HC * sizeof(float));
    const block_binding b{&h, &tb.head.plan, &w_->globals(), &tb.head.vectors};
    head_step(tb.plan, ex_, ws_, b, 1);
    const float* z = ws_.row_as<float>(stage::logits, 0);
    out.logits.assign(z, z + V);
  }
}

}  // namespace ordo::runtime
