/// The one list of op families. `ordo specs`, the registry test, the property drivers
/// (tests/property) and the GPU driver (tests/gpu) walk it, so a family added here is listed,
/// property-checked and GPU-checked (its test harness tests/property/<op>/harness.hpp is required:
/// the drivers do not compile without it). README "Checking a kernel variant" lists what a family touches.
#pragma once
#include "ordo/meta/type_list.hpp"
#include "ordo/ops/attention/attention.hpp"
#include "ordo/ops/compressor/compressor.hpp"
#include "ordo/ops/hc/hc.hpp"
#include "ordo/ops/indexer/indexer.hpp"
#include "ordo/ops/kv_store/kv_store.hpp"
#include "ordo/ops/moe/moe.hpp"
#include "ordo/ops/qmv/qmv.hpp"
#include "ordo/ops/quantize_rows/quantize_rows.hpp"
#include "ordo/ops/rmsnorm/rmsnorm.hpp"
#include "ordo/ops/rope/rope.hpp"
#include "ordo/ops/router/router.hpp"
#include "ordo/ops/sampling/sampling.hpp"
#include "ordo/registry/table.hpp"

namespace ordo::registry {

using all_ops = meta::type_list<ops::qmv::op, ops::quantize_rows::op,
                               ops::rmsnorm::op,
                               ops::rope::op,
                               ops::router::op,
                               ops::sampling::op,
                               ops::hc::op,
                               ops::kv_store::op,
                               ops::compressor::store_op, ops::compressor::emit_op,  // two calls, two problems
                               ops::attention::op,
                               ops::indexer::op,
                               ops::moe::op>;

/// Calls f.template operator()<Op>() for every family, in all_ops order.
template <class Fn>
void for_each_op(Fn&& f) {
  [&]<class... Ops>(meta::type_list<Ops...>) { (f.template operator()<Ops>(), ...); }(all_ops{});
}

}  // namespace ordo::registry
