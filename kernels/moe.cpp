// moe specs: every layout × tier × order × phase of the preset's space (ops/moe/moe.hpp).
#include "ordo/ops/moe/moe.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(moe, ops::moe::op);
