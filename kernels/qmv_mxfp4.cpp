// qmv specializations of format mxfp4: every tier and order of the build's space (registry/qmv_space.hpp).
#include "ordo/registry/qmv_instantiate.hpp"

ORDO_INSTANTIATE_QMV_FORMAT(mxfp4);
