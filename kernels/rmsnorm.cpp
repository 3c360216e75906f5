// rmsnorm specs: every tier × order × weighting × epilogue (ops/rmsnorm/rmsnorm.hpp).
#include "ordo/ops/rmsnorm/rmsnorm.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(rmsnorm, ops::rmsnorm::op);
