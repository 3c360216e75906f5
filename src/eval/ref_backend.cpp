#include "eval/ref_backend.hpp"

#include <optional>

#include "eval/ref_loader.hpp"
#include "ordo/ref/forward.hpp"

namespace ordo::eval {

namespace {

class ref_backend final : public backend {
 public:
  explicit ref_backend(const backend_options& o) {
    const gguf::file f = gguf::file::open(o.model);
    std::optional<gguf::file> mtp;
    if (!o.mtp_model.empty()) mtp.emplace(gguf::file::open(o.mtp_model));
    model_ = load_ref_model(f, mtp ? &*mtp : nullptr);
    sims_ = o.sims == ref_sims::on ? ref::simulations::all_on() : ref::simulations::all_off();
    state_ = ref::make_sequence_state(model_.config);
  }
  std::string_view name() const override { return "ref"; }
  uint32_t n_vocab() const override { return static_cast<uint32_t>(model_.config.n_vocab); }
  bool restart() override {
    state_ = ref::make_sequence_state(model_.config);
    return true;
  }
  std::vector<float> step(int32_t token) override {
    const ref::token_result r = ref::forward_token(model_.weights, model_.config, state_, token, sims_);
    return std::vector<float>(r.logits.begin(), r.logits.end());
  }

 private:
  ref_model model_;
  ref::simulations sims_;
  ref::sequence_state state_;
};

}  // namespace

std::unique_ptr<backend> make_ref_backend(const backend_options& options) {
  return std::make_unique<ref_backend>(options);
}

}  // namespace ordo::eval
