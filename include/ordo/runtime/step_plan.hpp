/// The plan of a step (DESIGN §6): `plan_for(weights, tier)` resolves, once, every registry entry
/// a layer step at that tier calls, and checks that each can run on its weights; a missing spec
/// fails here, by name, never per token. Written against the registry that exists (qmv and the
/// activation quantizers): every matmul of every block resolves to `qmv.<format>.r<tier>.<order>`
/// plus the quantizer of that format's activation. The calls of the other op families (docs/
/// engine.md lists them: rmsnorm, rope, hc, kv_store, compressor, indexer, attention, router,
/// moe, sampling) are recorded as `pending` requirements with their family and axes until those
/// families have registry tables; `require_complete()` refuses to run a step with any pending.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/registry/all_ops.hpp"
#include "ordo/runtime/weights.hpp"

namespace ordo::runtime {

/// One matmul of a block: the weight, the resolved qmv spec and its activation quantizer.
struct qmv_call {
  const weight_view* weight = nullptr;
  const registry::entry<ops::qmv::op>* entry = nullptr;
  const registry::entry<ops::quantize_rows::op>* quantize = nullptr;
  explicit operator bool() const { return entry != nullptr; }
};

/// A call of a family that has no registry table in this build yet.
struct pending_call {
  std::string family;  // "rmsnorm", "moe", ...
  std::string axes;    // the spec axes it needs, e.g. "q4_K r4 ls32 ids" (docs/engine.md)
  std::string site;    // the tensor or stage it serves, e.g. "blk.3.ffn_gate_exps.weight"
};

struct block_plan {
  uint32_t layer = 0;
  uint32_t ratio = 0;
  bool hash = false;
  std::array<qmv_call, model::ds4_role_count> qmv{};  // by role; empty for roles that are not matmuls
  const qmv_call& at(model::ds4_role r) const { return qmv[static_cast<std::size_t>(r)]; }
};

struct step_plan {
  int tier = 0;
  std::string order;
  block_plan head;                // globals: output_hc_fn, output (LM head)
  std::vector<block_plan> layers;
  std::optional<block_plan> mtp;
  std::vector<pending_call> pending;
  /// Distinct spec names resolved (for reports and tests).
  std::vector<std::string> resolved_specs() const;
  /// Throws std::runtime_error listing the pending calls when there are any.
  void require_complete() const;
};

/// Whether role `r` is multiplied by a qmv in the layer step (dense and small matmuls, the LM
/// head and the MTP projections; not the embedding, vectors, APE tables or routed experts).
bool is_qmv_role(model::ds4_role r);

/// Resolves the plan of `w` at `tier` with reduction order `order` (its spec-name spelling, e.g.
/// "ls32"). Throws std::out_of_range naming the first spec that is not compiled into this build,
/// or std::invalid_argument naming the spec and tensor a resolved spec cannot run on.
step_plan plan_for(const model_weights& w, int tier, std::string_view order = "ls32");

}  // namespace ordo::runtime
