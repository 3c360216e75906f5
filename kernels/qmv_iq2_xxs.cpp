// qmv specializations of format iq2_xxs: every tier and order of the build's space (registry/qmv_space.hpp).
#include "ordo/registry/qmv_instantiate.hpp"

ORDO_INSTANTIATE_QMV_FORMAT(iq2_xxs);
