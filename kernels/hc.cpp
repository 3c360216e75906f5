// hc specs: every tier × stage (ops/hc/hc.hpp).
#include "ordo/ops/hc/hc.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(hc, ops::hc::op);
