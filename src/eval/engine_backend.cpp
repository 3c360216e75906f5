#include "eval/engine_backend.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "ordo/runtime/device_memory.hpp"
#include "ordo/runtime/session.hpp"

namespace ordo::eval {

namespace {

class engine_backend final : public backend {
 public:
  engine_backend(const backend_options& o, runtime::executor_kind kind)
      : weights_(runtime::model_weights::open(o.model, o.mtp_model)),
        options_(options(weights_, kind)),
        session_(weights_, options_),
        chunk_(o.prefill_chunk) {
    if (o.sims == ref_sims::off)
      throw std::runtime_error("--backend " + std::string(name()) +
                               ": the simulations are part of the model on the engine (only --backend ref drops them)");
  }
  std::string_view name() const override { return session_.executor() == runtime::executor_kind::gpu ? "gpu" : "cpu"; }
  uint32_t n_vocab() const override { return weights_.hparams().n_vocab; }
  std::vector<float> step(int32_t token) override {
    return spec_ ? spec_->feed(std::span<const int32_t>(&token, 1), 1) : session_.decode(token);
  }
  bool chunked_prefill() const override { return true; }
  /// `last`: layer-major chunks (0: the whole prompt, at the largest tier); `every` needs each
  /// position's logits, so it steps (the same bits, E3).
  std::vector<float> prefill(std::span<const int32_t> tokens, eval::logits_rows rows) override {
    if (tokens.empty()) return {};
    if (rows == eval::logits_rows::every) return backend::prefill(tokens, rows);
    return spec_ ? spec_->feed(tokens, static_cast<uint32_t>(chunk_)) : session_.prefill(tokens, static_cast<uint32_t>(chunk_));
  }
  runtime::speculative_decoder* speculate(runtime::token_chooser choose, const runtime::spec_options& o,
                                          std::string& why) override {
    if (!weights_.mtp()) {
      why = "the model has no MTP block (a ds4-named model needs its mtp.0.* sidecar: --mtp FILE)";
      return nullptr;
    }
    if (session_.position() != 0)
      throw std::logic_error(std::string(name()) + " backend: speculation must start before the first token");
    // The target and its MTP block run on the session's executor (the gpu backend's stream and
    // upload), the same bits as the cpu backend's (tests/gpu/engine/speculative_gpu_test.cpp).
    target_ = runtime::make_session_target(session_);
    spec_.emplace(*target_, std::move(choose), o);
    return &*spec_;
  }
  /// A new sequence on the loaded weights; a speculative decoder of the old sequence is dropped.
  bool restart() override {
    spec_.reset();
    target_.reset();
    session_.restart();
    return true;
  }

 private:
  // The context the model allows, capped at 4096 positions (the state is allocated up front).
  static runtime::session_options options(const runtime::model_weights& w, runtime::executor_kind kind) {
    runtime::session_options s;
    s.ctx = std::min<uint32_t>(w.hparams().context_length, 4096);
    s.executor = kind;
    return s;
  }
  runtime::model_weights weights_;
  runtime::session_options options_;
  runtime::session session_;
  std::size_t chunk_;
  std::unique_ptr<runtime::speculative_target> target_;
  std::optional<runtime::speculative_decoder> spec_;
};

}  // namespace

std::unique_ptr<backend> make_cpu_backend(const backend_options& options) {
  return std::make_unique<engine_backend>(options, runtime::executor_kind::cpu);
}

std::unique_ptr<backend> make_gpu_backend(const backend_options& options) {
  return std::make_unique<engine_backend>(options, runtime::executor_kind::gpu);
}

bool gpu_device_present() { return runtime::device::present(); }

}  // namespace ordo::eval
