// The engine session (include/ordo/runtime/session.hpp).
#include "ordo/runtime/session.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <variant>

#include "ordo/quant/dequant_row.hpp"
#include "ordo/runtime/arena_copy.hpp"
#include "ordo/runtime/device_weights.hpp"
#include "ordo/runtime/layer_step.hpp"

namespace ordo::runtime {

namespace {
// The tiers every family of the step compiles (docs/engine.md: 1–8 and 16).
constexpr int step_tiers[] = {1, 2, 3, 4, 5, 6, 7, 8, 16};

session_options resolve_options(session_options o) {
  if (o.executor == executor_kind::gpu) {
    if (!device::present()) throw gpu::error("session: the gpu executor needs a GPU build and a device (device::present() is false)");
    // Kernels and the step's host loops share every arena.
    if (o.alloc.memory == memory_kind::host) o.alloc.memory = memory_kind::managed;
  }
  return o;
}
}  // namespace

struct session::impl {
  const model_weights* w;  // the mapped file: host reads (embedding, block vectors)
  session_options o;
  std::optional<device_weights> uploaded;  // gpu: every tensor, once
  const model_weights* kernel_weights;     // what the entries read: *w or uploaded->views()
  std::map<int, step_plan> plans;
  std::vector<block_vectors> vectors;  // [n_layer]
  block_vectors head_vectors;
  sequence_state state;
  workspace ws;
  step_scratch scratch;
  std::vector<float> hc_rows;  // [chunk][hc_dim]: the chunk's HC state between layers
  std::vector<float> hc_in;    // observer copy
  layer_observer observer;
  cpu_executor cpu;
  deferred_executor deferred;
  std::optional<device::stream> stream;
  std::optional<gpu_executor> gpu;

  impl(const model_weights& weights, const model_weights* placed, session_options opt)
      : w(&weights),
        o(resolve_options(std::move(opt))),
        kernel_weights(placed ? placed : &weights),
        state(plan_sequence_state(weights.hparams(), state_options{o.ctx, o.max_tier, o.alloc})),
        ws(plan_workspace(weights.hparams(), o.ctx, o.max_tier, o.alloc)),
        scratch(make_step_scratch(weights.hparams(), o.ctx, o.max_tier, o.alloc)) {
    if (o.executor == executor_kind::gpu) {
      if (!placed) {
        uploaded.emplace(weights);
        kernel_weights = &uploaded->views();
      }
      stream.emplace();
      gpu.emplace(stream->get());
    }
    for (const auto& b : w->layers()) vectors.push_back(bind_vectors(b, o.alloc.memory));
    head_vectors = bind_vectors(w->globals(), o.alloc.memory);
  }

  const step_plan& plan(int tier) {
    auto it = plans.find(tier);
    if (it == plans.end()) {
      it = plans.emplace(tier, plan_for(*kernel_weights, tier, o.order)).first;
      it->second.fuse_launches = o.fuse_launches;
    }
    it->second.require_complete();
    return it->second;
  }

  executor_ref executor_object() const {
    if (gpu) return &*gpu;
    if (o.executor == executor_kind::deferred) return &deferred;
    return &cpu;
  }
  /// Calls f with the session's executor (one layer_step template, every executor).
  template <class F>
  void with_executor(F&& f) const {
    std::visit([&](const auto* ex) { f(*ex); }, executor_object());
  }
};

session::session(const model_weights& w, session_options o) : session(w, nullptr, std::move(o)) {}

session::session(const model_weights& host, const model_weights& device, session_options o)
    : session(host, &device, std::move(o)) {}

session::session(const model_weights& w, const model_weights* placed, session_options o)
    : impl_(std::make_unique<impl>(w, placed, std::move(o))) {
  if (impl_->o.max_tier < 1) throw std::invalid_argument("session: max_tier must be at least 1");
  impl_->plan(tier_for_chunk(impl_->o.max_tier));  // resolve (and fail by spec name) now, not on the first token
}
session::session(session&&) noexcept = default;
session::~session() = default;

int64_t session::position() const { return impl_->state.n_layer() ? impl_->state.layer(0).frontier() : 0; }
const sequence_state& session::state() const { return impl_->state; }
sequence_state& session::state() { return impl_->state; }
const model::ds4_hparams& session::hparams() const { return impl_->w->hparams(); }
void session::observe(layer_observer f) { impl_->observer = std::move(f); }
void session::profile(launch_profile* p) {
  impl_->cpu.profile = p;
  if (impl_->gpu) impl_->gpu->profile = p;
}

void session::skip_to(int64_t position) {
  const model::ds4_hparams& h = impl_->w->hparams();
  if (this->position() != 0) throw std::logic_error("session::skip_to: the sequence must be empty");
  if (position < 0 || position > int64_t(impl_->o.ctx))
    throw std::invalid_argument("session::skip_to: position " + std::to_string(position) + " outside the context of " +
                                std::to_string(impl_->o.ctx));
  for (uint32_t r : h.compress_ratios)
    if (r && position % r)
      throw std::invalid_argument("session::skip_to: position " + std::to_string(position) +
                                  " is not a multiple of compression ratio " + std::to_string(r));
  impl_->with_executor([](const auto& ex) { ex.sync(); });
  const int64_t step = std::max<int64_t>(1, impl_->state.layout().options.slack_rows);
  for (std::size_t il = 0; il < impl_->state.n_layer(); ++il)
    for (int64_t f = 0; f < position; f += step) impl_->state.layer(il).advance(std::min(step, position - f));
}
executor_kind session::executor() const { return impl_->o.executor; }
const model_weights& session::weights() const { return *impl_->w; }
const model_weights& session::kernel_weights() const { return *impl_->kernel_weights; }
const session_options& session::options() const { return impl_->o; }
session::executor_ref session::executor_object() const { return impl_->executor_object(); }

void session::restart() {
  impl_->with_executor([](const auto& ex) { ex.sync(); });  // nothing of the last step still reads the state
  impl_->state.clear();
}

int session::tier_for_chunk(uint32_t chunk) const {
  const uint32_t cap = std::min(chunk, impl_->o.max_tier);
  int t = 1;
  for (int s : step_tiers)
    if (uint32_t(s) <= cap) t = s;
  return t;
}

std::vector<float> session::prefill(std::span<const int32_t> tokens, uint32_t chunk, row_outputs* out) {
  impl& m = *impl_;
  const model::ds4_hparams& h = m.w->hparams();
  if (tokens.empty()) throw std::invalid_argument("session::prefill: no tokens");
  if (chunk == 0) chunk = static_cast<uint32_t>(tokens.size());
  const std::size_t HC = h.hc_dim(), D = h.n_embd;
  const weight_view& embd = m.w->globals().need(model::ds4_role::token_embd);
  for (int32_t t : tokens)
    if (t < 0 || uint64_t(t) >= h.n_vocab)
      throw std::out_of_range("session::prefill: token id " + std::to_string(t) + " outside the vocabulary of " +
                              std::to_string(h.n_vocab));
  const int tier = tier_for_chunk(chunk);
  const step_plan& plan = m.plan(tier);
  const std::size_t ws_stride = m.ws.stride(stage::hc) / sizeof(float);
  if (out) {
    out->hidden.clear();
    out->logits.clear();
  }
  for (std::size_t c0 = 0; c0 < tokens.size(); c0 += chunk) {
    const std::size_t len = std::min<std::size_t>(chunk, tokens.size() - c0);
    const int64_t first = position();
    // Embedding: every stream starts as the token's row (a gather; no family).
    m.hc_rows.resize(len * HC);
    for (std::size_t i = 0; i < len; ++i) {
      float* row = m.hc_rows.data() + i * HC;
      quant::dequant_row(static_cast<uint32_t>(embd.format), embd.data + uint64_t(tokens[c0 + i]) * embd.row_bytes, row, D);
      for (std::size_t a = 1; a < h.hc_count; ++a) std::memcpy(row + a * D, row, D * sizeof(float));
    }
    // Layer-major: the whole chunk through layer il, in groups of ≤ tier rows, then layer il + 1.
    // A chunk of one group (decode, a verify span, a short chunk) without an observer keeps its HC
    // rows in the workspace from layer to layer (layer_step reads and writes stage::hc in place):
    // the copies in and out of every layer are identities, and on the GPU each moved managed
    // pages both ways and cost a synchronize.
    float* const hc = m.ws.row_as<float>(stage::hc, 0);
    const bool resident = len <= std::size_t(tier) && !m.observer;
    const memory_kind ws_kind = m.ws.layout().memory;
    const auto rows_in = [&](std::size_t g0, int n) {
      copy_rows_in(ws_kind, hc, ws_stride * sizeof(float), m.hc_rows.data() + g0 * HC, HC * sizeof(float), HC * sizeof(float),
                   std::size_t(n));
      // The token ids where every executor's router reads them (the hash router's kernel).
      std::copy_n(tokens.data() + c0 + g0, n, m.scratch.tokens.data());
    };
    const auto rows_out = [&](std::size_t g0, int n) {
      copy_rows_out(ws_kind, m.hc_rows.data() + g0 * HC, HC * sizeof(float), hc, ws_stride * sizeof(float), HC * sizeof(float),
                    std::size_t(n));
    };
    if (resident) rows_in(0, static_cast<int>(len));
    for (uint32_t il = 0; il < h.n_layer; ++il) {
      const block_binding b{&h, &plan.layers[il], &m.kernel_weights->layer(il), &m.vectors[il]};
      for (std::size_t g0 = 0; g0 < len; g0 += tier) {
        const int n = static_cast<int>(std::min<std::size_t>(tier, len - g0));
        if (!resident) rows_in(g0, n);
        if (m.observer) m.hc_in.assign(hc, hc + std::size_t(n) * ws_stride);
        m.with_executor([&](const auto& ex) {
          layer_step(plan, ex, m.ws, m.scratch, m.state.layer(il), b, step_rows{n, first + int64_t(g0), m.scratch.tokens.data()});
          if (!resident) ex.sync();  // the host reads the HC rows (and the observer the workspace) next
        });
        if (m.observer) m.observer(il, first + int64_t(g0), n, m.hc_in.data(), hc, ws_stride, m.ws);
        if (!resident) rows_out(g0, n);
      }
    }
    if (resident) {
      m.with_executor([](const auto& ex) { ex.sync(); });  // the host reads the last layer's HC rows next
      rows_out(0, static_cast<int>(len));
    }
    if (out) out->hidden.insert(out->hidden.end(), m.hc_rows.begin(), m.hc_rows.begin() + std::ptrdiff_t(len * HC));
    if (out && out->every_logits) {
      // The head of every row, in groups of the chunk's tier (verify: one group).
      const block_binding b{&h, &plan.head, &m.kernel_weights->globals(), &m.head_vectors};
      const std::size_t lg_stride = m.ws.stride(stage::logits) / sizeof(float);
      for (std::size_t g0 = 0; g0 < len; g0 += tier) {
        const int n = static_cast<int>(std::min<std::size_t>(tier, len - g0));
        rows_in(g0, n);
        m.with_executor([&](const auto& ex) {
          head_step(plan, ex, m.ws, b, n);
          ex.sync();  // the logits are read next
        });
        const std::size_t at = out->logits.size();
        out->logits.resize(at + std::size_t(n) * h.n_vocab);
        copy_rows_out(ws_kind, out->logits.data() + at, h.n_vocab * sizeof(float), m.ws.row_as<float>(stage::logits, 0),
                      lg_stride * sizeof(float), h.n_vocab * sizeof(float), std::size_t(n));
      }
      if (c0 + len == tokens.size()) return std::vector<float>(out->logits.end() - std::ptrdiff_t(h.n_vocab), out->logits.end());
      continue;
    }
    if (c0 + len == tokens.size()) {
      // The head of the chunk's last row only (a prefill needs the last logits).
      copy_rows_in(ws_kind, hc, 0, m.hc_rows.data() + (len - 1) * HC, 0, HC * sizeof(float), 1);
      const block_binding b{&h, &plan.head, &m.kernel_weights->globals(), &m.head_vectors};
      m.with_executor([&](const auto& ex) {
        head_step(plan, ex, m.ws, b, 1);
        ex.sync();  // the logits are read next
      });
    }
  }
  std::vector<float> logits(h.n_vocab);
  copy_rows_out(m.ws.layout().memory, logits.data(), 0, m.ws.row_as<float>(stage::logits, 0), 0, h.n_vocab * sizeof(float), 1);
  return logits;
}

}  // namespace ordo::runtime
