// qmv specs of format iq2_xxs: every tier and order the preset's space has for it (ops/qmv/qmv.hpp).
#include "ordo/ops/qmv/qmv.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(qmv_iq2_xxs, ops::qmv::op, quant::iq2_xxs);
