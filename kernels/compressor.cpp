// compressor specs: every store (tier × ratio) and emit (ratio × order × rows) spec
// (ops/compressor/compressor.hpp).
#include "ordo/ops/compressor/compressor.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(compressor_store, ops::compressor::store_op);
ORDO_INSTANTIATE(compressor_emit, ops::compressor::emit_op);
