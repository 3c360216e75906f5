// quantize_rows specs: every activation format (ops/quantize_rows/quantize_rows.hpp).
#include "ordo/ops/quantize_rows/quantize_rows.hpp"
#include "ordo/registry/instantiate.hpp"

ORDO_INSTANTIATE(quantize_rows, ops::quantize_rows::op);
