// attention specs: every tier × order × visibility × schedule (ops/attention/attention.hpp).
#include "ordo/ops/attention/attention.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(attention, ops::attention::op);
