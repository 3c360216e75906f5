/// The plan of a step (DESIGN §6): `plan_for(weights, tier)` resolves, once, every registry entry
/// a layer step at that tier calls, and checks that each can run on its weights; a missing spec
/// fails here, by name, never per token. Every matmul of every block resolves to
/// `qmv.<format>.r<tier>.<order>` plus the quantizer of that format's activation. A call whose
/// family has no registry table in a build would be recorded as a `pending` requirement (family,
/// axes, site) and `require_complete()` refuses to run a step with any; every family of the step
/// has its table now, so `pending` stays empty (sampling is the driver's, not the step's).
///
/// `families` holds the entries of the non-matmul calls, resolved once per tier in ONE function
/// per family (step_plan.cpp, `resolve_<family>`), each through registry::find: rmsnorm, rope,
/// router, hc, kv_store, compressor, indexer and attention. The routed experts and the shared
/// expert are the moe family's two grouped launches at the step's tier (`block_plan::moe`,
/// resolved in plan_block from the block's expert formats).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/ops/attention/problem.hpp"
#include "ordo/ops/hc/problem.hpp"
#include "ordo/ops/indexer/problem.hpp"
#include "ordo/ops/kv_store/problem.hpp"
#include "ordo/ops/moe/problem.hpp"
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

/// The FFN experts of a block (F8–F14): the moe family's gate_up and down entries of the block's
/// expert layout (routed gate/up, routed down and shared formats) at the step's tier, the
/// quantizers of the routed and the shared gate/up activations, and the weights they read.
struct moe_calls {
  const registry::entry<ops::moe::op>* gate_up = nullptr;
  const registry::entry<ops::moe::op>* down = nullptr;
  const registry::entry<ops::quantize_rows::op>* quantize_routed = nullptr;  // x for the routed gate/up
  const registry::entry<ops::quantize_rows::op>* quantize_shared = nullptr;  // x for the shared gate/up
  const weight_view *gate = nullptr, *up = nullptr, *down_w = nullptr;                   // [n_expert][rows][cols]
  const weight_view *shared_gate = nullptr, *shared_up = nullptr, *shared_down = nullptr;
  std::size_t mid_act_row_bytes = 0;  // one n_ff row in the larger of the two down activations
  explicit operator bool() const { return gate_up != nullptr; }
};

struct block_plan {
  uint32_t layer = 0;
  uint32_t ratio = 0;
  bool hash = false;
  std::array<qmv_call, model::ds4_role_count> qmv{};  // by role; empty for roles that are not matmuls
  moe_calls moe;                                      // the FFN experts (empty: the block has none)
  const qmv_call& at(model::ds4_role r) const { return qmv[static_cast<std::size_t>(r)]; }
};

/// The non-matmul entries of a step at one tier (docs/engine.md §5 names each call).
struct family_entries {
  // rmsnorm (A1, A5, A7, A9, A11, F1, F5, head): the f32 epilogue; the activation blocks of the
  // next qmv come from its own quantizer (qmv_call::quantize), the same bits as a fused epilogue.
  const registry::entry<ops::rmsnorm::op>* norm_plain = nullptr;
  const registry::entry<ops::rmsnorm::op>* norm_weighted = nullptr;
  // rope (A12, C8, O1).
  const registry::entry<ops::rope::op>* rope_forward = nullptr;
  const registry::entry<ops::rope::op>* rope_inverse = nullptr;
  // router (F7).
  const registry::entry<ops::router::op>* route_top_k = nullptr;
  const registry::entry<ops::router::op>* route_hash = nullptr;
  // hc (A3, A4, O6, head collapse).
  const registry::entry<ops::hc::op>* hc_split = nullptr;
  const registry::entry<ops::hc::op>* hc_weighted_sum = nullptr;
  const registry::entry<ops::hc::op>* hc_post = nullptr;
  const registry::entry<ops::hc::op>* hc_collapse = nullptr;
  // kv_store (A13).
  const registry::entry<ops::kv_store::op>* kv_store = nullptr;
  // compressor (H3, C3, C6: store; H4, C11: attention rows; C12: indexer rows, resolved only for a
  // model with ratio-4 layers: the indexer emission exists at ls32 only, docs/decisions.md D15).
  const registry::entry<ops::compressor::store_op>* store_ratio4 = nullptr;
  const registry::entry<ops::compressor::store_op>* store_ratio128 = nullptr;
  const registry::entry<ops::compressor::emit_op>* emit_ratio4 = nullptr;
  const registry::entry<ops::compressor::emit_op>* emit_ratio128 = nullptr;
  const registry::entry<ops::compressor::emit_op>* emit_indexer = nullptr;
  // indexer (C9, C13, C14): flat selector (the hierarchical one selects the same rows).
  const registry::entry<ops::indexer::op>* indexer = nullptr;
  // attention (W1, H5, C15): the shipped chunked order, general visibility, whole schedule.
  const registry::entry<ops::attention::op>* attention = nullptr;
};

struct step_plan {
  int tier = 0;
  std::string order;
  block_plan head;                // globals: output_hc_fn, output (LM head)
  std::vector<block_plan> layers;
  std::optional<block_plan> mtp;
  family_entries families;
  std::vector<pending_call> pending;
  bool fuse_launches = true;  // session_options::fuse_launches
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
