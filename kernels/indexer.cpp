// indexer specs: every tier × order × selector (ops/indexer/indexer.hpp).
#include "ordo/ops/indexer/indexer.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(indexer, ops::indexer::op);
