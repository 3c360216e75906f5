// sampling specs: every tier × mode (ops/sampling/sampling.hpp).
#include "ordo/ops/sampling/sampling.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(sampling, ops::sampling::op);
