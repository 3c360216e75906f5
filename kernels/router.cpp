// router specs: every tier × selection (ops/router/router.hpp).
#include "ordo/ops/router/router.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(router, ops::router::op);
