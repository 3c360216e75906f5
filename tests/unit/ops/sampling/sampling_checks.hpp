/// Checks of mode sample that a wrong sampler fails, shared by sampling_sample_test (where the
/// real sampler must pass them) and sampling_mutant_test (built once per ORDO_MUTANT_SAMPLING_*
/// macro, where each mutant must be caught by the check aimed at it).
#pragma once
#include <cstdint>
#include <vector>

#include "../../../property/sampling/sampling_harness.hpp"

namespace ordo::test::sampling {

using ops::sampling::mode;
using ops::sampling::settings;

/// How many of `draws` positions of pool row 0 of c the tier-`tier` sample entry samples
/// differently from the replay.
inline int replay_mismatches(sampling_case c, int draws, int tier = 1) {
  int bad = 0;
  const auto& e = ops::sampling::find_entry(tier, mode::sample);
  for (int d = 0; d < draws; ++d) {
    c.positions[0] = std::uint64_t(d) * 7919u + 3u;
    if (run(e, c, {0}).tokens[0] != replay_token(mode::sample, c, 0)) ++bad;
  }
  return bad;
}

/// Rows where the cut falls inside a run of equal logits: all-equal rows with top-k 10 (the ten
/// lowest ids are kept), and rows of ~40 distinct values with top-p 0.5.
inline int tie_rule_mismatches() {
  int bad = 0;
  quant::splitmix64 rng{77};
  sampling_case flat = make_case(1000, 1, 5, mode::sample);
  std::fill(flat.pool[0].begin(), flat.pool[0].end(), 0.5f);
  flat.sampler = settings{1.0f, 10, 1.0f, 0.0f, 11};
  bad += replay_mismatches(flat, 40);
  sampling_case ties{1000, {make_row(1000, row_kind::soft_ties, rng)}, settings{1.0f, 0, 0.5f, 0.0f, 12}, {0}};
  bad += replay_mismatches(ties, 40);
  return bad;
}

/// Soft rows over 2000 tokens with no filter: every chunk carries mass, so the chunk order of the
/// draw decides the token.
inline int draw_order_mismatches() {
  quant::splitmix64 rng{78};
  sampling_case c{2000, {make_row(2000, row_kind::soft, rng)}, settings{1.5f, 0, 1.0f, 0.0f, 13}, {0}};
  return replay_mismatches(c, 60);
}

/// The fraction of 400 positions at which seeds 1 and 2 sample the same token from one soft row
/// (T = 2 over 1000 tokens: two independent draws agree far less than half the time).
inline double seed_agreement() {
  quant::splitmix64 rng{79};
  sampling_case c{1000, {make_row(1000, row_kind::soft, rng)}, settings{2.0f, 0, 1.0f, 0.0f, 1}, {0}};
  const auto& e = ops::sampling::find_entry(1, mode::sample);
  int same = 0;
  for (std::uint64_t pos = 0; pos < 400; ++pos) {
    c.positions[0] = pos;
    c.sampler.seed = 1;
    const auto a = run(e, c, {0}).tokens[0];
    c.sampler.seed = 2;
    same += a == run(e, c, {0}).tokens[0] ? 1 : 0;
  }
  return same / 400.0;
}

}  // namespace ordo::test::sampling
