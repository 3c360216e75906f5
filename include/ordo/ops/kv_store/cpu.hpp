/// The provisional CPU executor of kv_store (until the generic executor of DESIGN §3a lands):
/// the body row by row, dims in ascending order. The bit reference of every GPU spec (E2).
#pragma once
#include "ordo/ops/kv_store/body.hpp"
#include "ordo/ops/kv_store/kv_store.hpp"

namespace ordo::ops::kv_store {

template <int R>
void run_cpu(const problem& p) {
  for (int i = 0; i < p.rows; ++i) write_row(p, i, 0, 1);
}

}  // namespace ordo::ops::kv_store
