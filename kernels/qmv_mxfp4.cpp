// qmv specs of format mxfp4: every tier and order the preset's space has for it (ops/qmv/qmv.hpp).
#include "ordo/ops/qmv/qmv.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(qmv_mxfp4, ops::qmv::op, quant::mxfp4);
