// qmv specs of format q2_k: every tier and order the preset's space has for it (ops/qmv/qmv.hpp).
#include "ordo/ops/qmv/qmv.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(qmv_q2_k, ops::qmv::op, quant::q2_k);
