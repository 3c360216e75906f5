/// The MTP block bound to a session (mtp_step.hpp's calls): its plans per tier on the session's
/// kernel weights (the device views of the session's one upload on gpu), its workspace, step
/// scratch and block vectors in arenas of the session's alloc policy, and the session's executor
/// (cpu, gpu or deferred: one code path, DESIGN §6), with a sync before every host loop that
/// reads what an entry wrote. It appends to the ring it is given — the MTP layer of the session's
/// sequence_state (D2: the speculative driver feeds it for every position whose target hidden
/// state exists). Row r of the ring is position r + 1 (position 0 has no h_{-1}).
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "ordo/runtime/mtp_step.hpp"
#include "ordo/runtime/sequence_state.hpp"
#include "ordo/runtime/session.hpp"
#include "ordo/runtime/step_inputs.hpp"
#include "ordo/runtime/workspace.hpp"

namespace ordo::runtime {

/// What an MTP step hands back (host memory).
struct mtp_outputs {
  std::vector<float> logits;  // [n_vocab]: the last row's (when asked)
  std::vector<float> hidden;  // [n][hc_dim]: each row's output HC state (a chain's next input)
};

class mtp_block {
 public:
  /// Binds the MTP block of `s`'s model to `s` (which must outlive it): its tiers
  /// (tier_for_chunk), order, context and alloc policy. Throws std::invalid_argument when the
  /// model has no MTP block; what plan_for throws otherwise.
  explicit mtp_block(const session& s);

  /// Appends n = tokens.size() rows to `ring` at positions ring.frontier() + 1 …: row i mixes
  /// tokens[i] with the HC state at hidden + i·hidden_stride floats ([hc_dim], host memory).
  /// Chunks of the largest tier ≤ max_tier. `head_last`: also the logits of the last row.
  void step(layer_state& ring, std::span<const int32_t> tokens, const float* hidden, std::size_t hidden_stride,
            bool head_last, mtp_outputs& out);

 private:
  struct tier_binding {
    step_plan plan;
    mtp_mixer mixer;
    mtp_head head;
  };
  const tier_binding& at(int tier);
  template <class Executor>
  void run(const Executor& ex, layer_state& ring, std::span<const int32_t> tokens, const float* hidden,
           std::size_t hidden_stride, bool head_last, mtp_outputs& out);
  const session* s_;
  block_vectors vectors_, globals_;
  std::map<int, tier_binding> tiers_;
  workspace ws_;
  step_scratch scratch_;
};

}  // namespace ordo::runtime
