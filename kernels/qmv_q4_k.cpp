// qmv specs of format q4_k: every tier and order the preset's space has for it (ops/qmv/qmv.hpp).
#include "ordo/ops/qmv/qmv.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(qmv_q4_k, ops::qmv::op, quant::q4_k);
