// qmv specs of format q8_0: every tier and order the preset's space has for it (ops/qmv/qmv.hpp).
#include "ordo/ops/qmv/qmv.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(qmv_q8_0, ops::qmv::op, quant::q8_0);
