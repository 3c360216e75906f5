// qmv specializations of format q8_0: every tier and order of the build's space (registry/qmv_space.hpp).
#include "ordo/registry/qmv_instantiate.hpp"

ORDO_INSTANTIATE_QMV_FORMAT(q8_0);
