// kv_store specs: every tier (ops/kv_store/kv_store.hpp).
#include "ordo/ops/kv_store/kv_store.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(kv_store, ops::kv_store::op);
