/// Whether this translation unit is a mutation check: built with one ORDO_MUTANT_* switch of
/// include/ordo/ref (see tests/parity/ref/CMakeLists.txt), a parity test then asserts that its
/// comparison DETECTS the mutant (the difference exceeds the tolerance) and prints by how much.
#pragma once

#ifndef ORDO_MUTANT_NAME
#define ORDO_MUTANT_NAME "none"  // the switch's name without the prefix, e.g. "SWIGLU_NO_CLAMP"
#endif

namespace ordo::parity {

#if defined(ORDO_MUTANT_SWIGLU_NO_CLAMP) || defined(ORDO_MUTANT_SWIGLU_GATE_BOTH_SIDES) || \
    defined(ORDO_MUTANT_SINKHORN_ITERS_MINUS_ONE) || defined(ORDO_MUTANT_YARN_FACTOR_PLUS_ONE) ||  \
    defined(ORDO_MUTANT_TOPK_TIES_HIGHEST)
inline constexpr bool mutant_build = true;
#else
inline constexpr bool mutant_build = false;
#endif

}  // namespace ordo::parity
