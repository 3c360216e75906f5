// qmv specializations of format q4_k: every tier and order of the build's space (registry/qmv_space.hpp).
#include "ordo/registry/qmv_instantiate.hpp"

ORDO_INSTANTIATE_QMV_FORMAT(q4_k);
