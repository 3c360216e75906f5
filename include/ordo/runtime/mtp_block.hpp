/// The MTP block bound to a model on the CPU executor (mtp_step.hpp's calls): its plans per tier,
/// its workspace and step scratch, and the ring it appends to — the MTP layer of a session's
/// sequence_state (D2: the speculative driver feeds it for every position whose target hidden
/// state exists). Row r of the ring is position r + 1 (position 0 has no h_{-1}).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <vector>

#include "ordo/runtime/executor.hpp"
#include "ordo/runtime/mtp_step.hpp"
#include "ordo/runtime/sequence_state.hpp"
#include "ordo/runtime/step_inputs.hpp"
#include "ordo/runtime/workspace.hpp"

namespace ordo::runtime {

struct mtp_options {
  uint32_t ctx = 4096;         // the session's context (the ring's)
  uint32_t max_tier = 16;      // the largest tier a step uses (at most the ring's slack)
  std::string order = "ls32";
  alloc_policy alloc;
  /// The tier a chunk of n rows runs at (the session's tier_for_chunk, so both use one list).
  std::function<int(uint32_t)> tier_for;
};

/// What an MTP step hands back.
struct mtp_outputs {
  std::vector<float> logits;  // [n_vocab]: the last row's (when asked)
  std::vector<float> hidden;  // [n][hc_dim]: each row's output HC state (a chain's next input)
};

class mtp_block {
 public:
  /// Throws std::invalid_argument when `w` has no MTP block; what plan_for throws otherwise.
  mtp_block(const model_weights& w, mtp_options o = {});

  /// Appends n = tokens.size() rows to `ring` at positions ring.frontier() + 1 …: row i mixes
  /// tokens[i] with the HC state at hidden + i·hidden_stride floats ([hc_dim]). Chunks of the
  /// largest tier ≤ max_tier. `head_last`: also the logits of the last row.
  void step(layer_state& ring, std::span<const int32_t> tokens, const float* hidden, std::size_t hidden_stride,
            bool head_last, mtp_outputs& out);

 private:
  struct tier_binding {
    step_plan plan;
    mtp_mixer mixer;
    mtp_head head;
  };
  const tier_binding& at(int tier);
  const model_weights* w_;
  mtp_options o_;
  block_vectors vectors_, globals_;
  std::map<int, tier_binding> tiers_;
  workspace ws_;
  step_scratch scratch_;
  cpu_executor ex_;
};

}  // namespace ordo::runtime
