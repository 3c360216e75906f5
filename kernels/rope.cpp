// rope specs: every tier × direction (ops/rope/rope.hpp).
#include "ordo/ops/rope/rope.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(rope, ops::rope::op);
