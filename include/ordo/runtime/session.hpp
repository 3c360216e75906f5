/// One sequence on the exact engine (DESIGN §6, issue 11): the model bound once (plans per tier,
/// block vectors), the sequence state, the workspace and the step scratch. `prefill` runs
/// layer-major over chunks: every row of a chunk goes through layer il (in groups sharing each
/// weight pass at the largest tier ≤ min(chunk, slack)) before any row enters layer il + 1;
/// `decode` is prefill of one token. Both return the logits after the last token. E3: any chunk
/// size gives the bits of one token at a time (tests/unit/runtime/session_test.cpp).
///
/// The executor is chosen once: `cpu` runs every entry on the host; `gpu` uploads the weights
/// once (device_weights.hpp), puts the state, workspace, scratch and block vectors in managed
/// (or pinned host) memory and runs the same layer_step with the gpu_executor on one stream; its logits and
/// state bytes are the CPU's bit for bit (E2 at model level: tests/gpu/engine).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "ordo/runtime/executor.hpp"
#include "ordo/runtime/sequence_state.hpp"
#include "ordo/runtime/step_inputs.hpp"
#include "ordo/runtime/step_plan.hpp"
#include "ordo/runtime/weights.hpp"
#include "ordo/runtime/workspace.hpp"

namespace ordo::runtime {

enum class executor_kind : uint8_t {
  cpu,
  gpu,
  deferred,  // tests: the CPU entries run at the step's sync points (executor.hpp), host memory
};

struct session_options {
  uint32_t ctx = 4096;         // positions the sequence may hold
  uint32_t max_tier = 16;      // the largest tier a step uses (also the state's slack)
  std::string order = "ls32";  // the reduction order of every row reduction
  alloc_policy alloc;          // gpu: memory managed (default) or pinned; host means managed
  executor_kind executor = executor_kind::cpu;
  /// qmv calls that read one stage share one quantization, and same-input groups run as one qmv
  /// (layer_step.hpp): fewer launches, the same bits. false: one quantization and one qmv a call,
  /// as before, so `ordo bench --unfused` can measure what that saves.
  bool fuse_launches = true;
};

/// What prefill also hands back per row when asked (the speculative verifier, the MTP catch-up
/// of D2): every row's logits (the head batched at the chunk's tier) and every row's final HC
/// state, the hidden state the MTP block reads.
struct row_outputs {
  bool every_logits = false;
  std::vector<float> logits;  // [rows][n_vocab] when every_logits (row i: after token i)
  std::vector<float> hidden;  // [rows][hc_dim]: each row's HC state after the last layer
};

class session {
 public:
  /// Binds `w` (which must outlive the session). Throws what plan_for throws for a missing spec;
  /// gpu: gpu::error when this build or machine has no GPU.
  explicit session(const model_weights& w, session_options o = {});
  /// The entries on weights placed elsewhere: on gpu, weights already in device memory (`ordo
  /// bench --synthetic`, which builds them there); on cpu and deferred, a host copy (tests: one
  /// laid out by weight_placement.hpp). `host` is what host code reads (the embedding rows, the
  /// block vectors), `device` what the entries read (the same tensor map); both outlive the session.
  session(const model_weights& host, const model_weights& device, session_options o);
  session(session&&) noexcept;
  ~session();

  /// Consumes `tokens` at the next positions in chunks of `chunk` rows (0: the whole span);
  /// returns the logits [n_vocab] after the last token.
  /// With `rows`, also fills it (see row_outputs; its vectors are replaced).
  std::vector<float> prefill(std::span<const int32_t> tokens, uint32_t chunk, row_outputs* rows = nullptr);
  std::vector<float> decode(int32_t token) { return prefill(std::span<const int32_t>(&token, 1), 1); }
  /// The speculative verifier (src/runtime/verify.cpp): `tokens` (the next token, then the
  /// drafts) as ONE chunk at tier tier_for_chunk(k), every weight-carrying stage and the head at
  /// that tier, so row i has the bits of decoding it alone (E1). Needs k <= max_tier.
  row_outputs verify(std::span<const int32_t> tokens);

  /// Back to position 0 on the bound model: the state cleared; weights (and their upload),
  /// plans and arenas kept.
  void restart();

  int64_t position() const;
  const sequence_state& state() const;
  sequence_state& state();
  const model::ds4_hparams& hparams() const;
  /// The tier a chunk of `chunk` rows runs at: the largest compiled tier ≤ min(chunk, max_tier).
  int tier_for_chunk(uint32_t chunk) const;
  executor_kind executor() const;

  /// The mapped file's weights: what host code reads (the embedding gather, the block vectors).
  const model_weights& weights() const;
  /// The weights the entries read: the placed weights when the session was given them, else the
  /// mapped file's on cpu and deferred and the device views of the one upload on gpu
  /// (device_weights.hpp). Code that plans its own steps for this session (the
  /// MTP block) plans on these, so nothing is uploaded twice.
  const model_weights& kernel_weights() const;
  /// The options as resolved (gpu: host memory became managed): the alloc policy of every arena
  /// a step of this session reads.
  const session_options& options() const;
  /// The session's executor object itself (its GPU stream, its deferred queue), for code that runs
  /// entries between the session's steps (the MTP block): on one stream and one queue, a step's
  /// syncs order it against the session's steps as they order the session's own.
  using executor_ref = std::variant<const cpu_executor*, const deferred_executor*, const gpu_executor*>;
  executor_ref executor_object() const;
  /// Calls f with the session's executor (f is a template over the executor, like layer_step).
  template <class F>
  void with_executor(F&& f) const {
    std::visit([&](const auto* ex) { f(*ex); }, executor_object());
  }

  /// Tests: called after each layer step (its work finished) with the HC rows it consumed and produced
  /// ([n][hc_dim] each, `stride` floats apart) and the workspace as the step left it (its
  /// discrete choices: expert_ids, idx_top).
  using layer_observer = std::function<void(uint32_t layer, int64_t first, int n, const float* hc_in,
                                            const float* hc_out, std::size_t stride, const workspace& ws)>;
  void observe(layer_observer f);
  /// Times every entry the session runs into `p` (null: stops); the caller collects it after the
  /// work (launch_profile::collect) and keeps it alive meanwhile.
  void profile(launch_profile* p);
  /// Bench only (`ordo bench --synthetic`): every layer's frontier jumps from 0 to `position`
  /// without computing, the skipped rows left as cleared (raw and compressed rows zero, ring
  /// scores −inf), so a decode step at a long context costs what it costs there without a long
  /// prefill. `position` must be a multiple of every compression ratio (window-aligned) and fit
  /// the context. The values are not a model's; use it to measure time only.
  void skip_to(int64_t position);

 private:
  session(const model_weights& w, const model_weights* placed, session_options o);
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace ordo::runtime
