// Mutation checks of mode sample, each built as its own target with one ORDO_MUTANT_SAMPLING_*
// macro (CMakeLists.txt): the check aimed at the mutant must catch it. A build without a mutant
// macro is an error, so a target cannot silently test the real sampler here. The registry
// entries' CPU executor is compiled in this TU (registry/instantiate.hpp defines it), so the
// entries run the mutated body; the target does not link ordo_kernels' unmutated copy.
#include <gtest/gtest.h>

#include "ordo/registry/instantiate.hpp"
#include "sampling_checks.hpp"

namespace {

using namespace ordo::test::sampling;

#if defined(ORDO_MUTANT_SAMPLING_DRAW_ORDER)
TEST(SamplingMutant, DrawOrderChangedIsCaughtByTheReplay) {
  const int bad = draw_order_mismatches();
  std::printf("draw walked from the last chunk: %d of 60 draws differ from the replay\n", bad);
  EXPECT_GT(bad, 0);
}
#elif defined(ORDO_MUTANT_SAMPLING_TIES_TO_HIGHEST_ID)
TEST(SamplingMutant, TieRuleFlippedIsCaughtByTheReplay) {
  const int bad = tie_rule_mismatches();
  std::printf("cuts breaking ties to the highest id: %d of 80 draws differ from the replay\n", bad);
  EXPECT_GT(bad, 0);
}
#elif defined(ORDO_MUTANT_SAMPLING_RNG_POSITION_ONLY)
TEST(SamplingMutant, RngKeyedByPositionOnlyIsCaughtBySeedAgreement) {
  const double same = seed_agreement();
  std::printf("RNG without the seed: seeds 1 and 2 agree on %.3f of 400 positions\n", same);
  EXPECT_GT(same, 0.5);
}
#else
#error "sampling_mutant_test needs one ORDO_MUTANT_SAMPLING_* macro"
#endif

}  // namespace
