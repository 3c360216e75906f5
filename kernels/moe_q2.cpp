// moe specs of layout q2: every tier, order and phase the preset's space has for it (ops/moe/moe.hpp).
// One TU per layout, like qmv's per format, so the GPU compilers build them in parallel.
#include "ordo/ops/moe/moe.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(moe_q2, ops::moe::op, ops::moe::q2_layout);
