/// Umbrella header of the double-precision Eigen reference forward pass: the readable oracle
/// the exact kernels and the external implementations are compared against.
#pragma once
#include "ordo/ref/attention.hpp"
#include "ordo/ref/basic.hpp"
#include "ordo/ref/compressor.hpp"
#include "ordo/ref/config.hpp"
#include "ordo/ref/forward.hpp"
#include "ordo/ref/hc.hpp"
#include "ordo/ref/moe.hpp"
#include "ordo/ref/rope.hpp"
#include "ordo/ref/rounding.hpp"
#include "ordo/ref/state.hpp"
#include "ordo/ref/weights.hpp"
