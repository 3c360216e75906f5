/// The memory plan: bytes for the weights (per tensor, from an opened model or from the model
/// description alone), the sequence state and the step workspace at a context length and tier,
/// and the check made before anything is allocated: a model or context that does not fit the
/// host RAM or the device memory is refused with the numbers (memory_error), never an OOM crash.
/// Reported by `ordo inspect FILE --plan [--ctx N] [--tier R]`.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/model/ds4_tensor_map.hpp"
#include "ordo/runtime/sequence_state.hpp"
#include "ordo/runtime/state_layout.hpp"
#include "ordo/runtime/weights.hpp"
#include "ordo/runtime/workspace.hpp"

namespace ordo::runtime {

/// One tensor's bytes.
struct weight_entry {
  std::string name;
  model::ds4_role role;
  int layer;  // model::ds4_global, a main layer, or n_layer for the MTP block
  gguf::ggml_type type;
  uint64_t bytes;
};

/// The tensor types of a model described without a file: one type per class of tensor.
struct weight_types {
  gguf::ggml_type dense = gguf::ggml_type::q8_0;      // attention, shared expert, LM head, MTP projections
  gguf::ggml_type small = gguf::ggml_type::f16;       // HC fn, router, compressor, indexer, APE
  gguf::ggml_type embedding = gguf::ggml_type::f16;
  gguf::ggml_type gate_up = gguf::ggml_type::iq2_xxs; // routed gate and up
  gguf::ggml_type down = gguf::ggml_type::q2_k;       // routed down
  /// antirez/ds4's published layouts (ds4-model.md §8.4): "q2" (IQ2_XXS gate/up, Q2_K down),
  /// "q4" (Q4_K experts), "mxfp4" (MXFP4 experts); throws std::invalid_argument otherwise.
  static weight_types layout(std::string_view name);
};

/// Every tensor of the described model (both files with ds4 naming and MTP).
std::vector<weight_entry> weight_entries(const model::ds4_hparams& h, model::ds4_naming naming, const weight_types& t);
/// Every tensor of an opened model.
std::vector<weight_entry> weight_entries(const model_weights& w);

/// Bytes by tensor group, for reports.
struct weight_group {
  std::string name;  // "routed experts", "dense (attention, shared, head)", ...
  uint64_t tensors = 0, bytes = 0;
};

struct memory_plan {
  uint32_t ctx = 0;
  uint32_t tier = 0;  // workspace rows (the largest tier)
  uint64_t weights = 0;      // all tensors
  uint64_t weights_mtp = 0;  // of which the MTP block
  std::vector<weight_group> groups;
  sequence_state_layout state;
  uint64_t state_bytes = 0;
  workspace_layout workspace;
  uint64_t workspace_bytes = 0;
  uint64_t total() const { return weights + state_bytes + workspace_bytes; }
};

/// The plan for `entries` at o.ctx with a workspace of `tier` rows (o.slack_rows is raised to
/// at least `tier`: a step writes that many rows ahead).
memory_plan plan_memory(const model::ds4_hparams& h, const std::vector<weight_entry>& entries, state_options o,
                        uint32_t tier);

/// Where the engine keeps weights, state and workspace: the CPU executor on the host (the
/// mapped weights must be resident), the GPU executor on the device.
enum class placement { host, device };

class memory_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws memory_error when plan.total() exceeds `available` bytes, with every number:
///   "does not fit device memory: weights 81.02 GiB + state 1.21 GiB + workspace 12.5 MiB =
///    82.24 GiB > 80.00 GiB available (context 32768, tier 16); ..."
void check_fits(const memory_plan& plan, placement where, uint64_t available);

/// What a sequence allocates: its state and the step workspace.
struct sequence_allocation {
  sequence_state state;
  workspace scratch;
};

/// The engine's allocation path: check_fits(plan, where, available) first, then allocate the
/// plan's state and workspace (on the host; a device arena uses the same layouts). A plan that
/// does not fit throws memory_error and allocates nothing.
sequence_allocation allocate_checked(const memory_plan& plan, placement where, uint64_t available);

/// Physical host memory in bytes (sysconf), 0 if unknown.
uint64_t host_memory_bytes();

/// "81.02 GiB", "12.5 MiB", "640 B".
std::string format_bytes(uint64_t b);

}  // namespace ordo::runtime
