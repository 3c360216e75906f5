/// Checks of mode sample that a wrong sampler fails, shared by sampling_sample_test (where the
/// real sampler must pass them) and sampling_mutant_test (built once per ORDO_MUTANT_SAMPLING_*
/// macro, where each mutant must be caught by the check aimed at it). Entries come from
/// registry::table<sampling::op>, run by the CPU executor through the property harness.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../../../property/sampling/harness.hpp"

namespace ordo::test::sampling {

using H = harness<ops::sampling::op>;
using ops::sampling::mode;
using ops::sampling::settings;
using sampling_case = H::data;
using row_kind = H::row_kind;

/// The registry entry of (tier, mode): "sampling.r<tier>.<mode>".
inline const H::entry& entry_of(int tier, mode m) {
  return registry::find<ops::sampling::op>("sampling.r" + std::to_string(tier) + "." + std::string(ops::sampling::ordo_name(m)));
}

/// The tokens of pool rows `ids` in slots 0.. of one run (tight layout, +inf rows past the live count).
inline std::vector<std::int32_t> tokens_of(const H::entry& e, const sampling_case& c, const std::vector<int>& ids) {
  return H::tokens(H::run(cpu_backend(), e, c, ids, H::tight_layout()));
}

/// How many of `draws` positions of pool row 0 of c the tier-`tier` sample entry samples
/// differently from the replay.
inline int replay_mismatches(sampling_case c, int draws, int tier = 1) {
  int bad = 0;
  const auto& e = entry_of(tier, mode::sample);
  for (int d = 0; d < draws; ++d) {
    c.positions[0] = std::uint64_t(d) * 7919u + 3u;
    if (tokens_of(e, c, {0})[0] != H::replay_token(mode::sample, c, 0)) ++bad;
  }
  return bad;
}

/// Rows where the cut falls inside a run of equal logits: all-equal rows with top-k 10 (the ten
/// lowest ids are kept), and rows of ~40 distinct values with top-p 0.5.
inline int tie_rule_mismatches() {
  int bad = 0;
  quant::splitmix64 rng{77};
  sampling_case flat = H::make(1000, 1, 5, mode::sample);
  std::fill(flat.pool[0].begin(), flat.pool[0].end(), 0.5f);
  flat.sampler = settings{1.0f, 10, 1.0f, 0.0f, 11};
  bad += replay_mismatches(flat, 40);
  sampling_case ties{1000, {H::make_row(1000, row_kind::soft_ties, rng)}, settings{1.0f, 0, 0.5f, 0.0f, 12}, {0}};
  bad += replay_mismatches(ties, 40);
  return bad;
}

/// Soft rows over 2000 tokens with no filter: every chunk carries mass, so the chunk order of the
/// draw decides the token.
inline int draw_order_mismatches() {
  quant::splitmix64 rng{78};
  sampling_case c{2000, {H::make_row(2000, row_kind::soft, rng)}, settings{1.5f, 0, 1.0f, 0.0f, 13}, {0}};
  return replay_mismatches(c, 60);
}

/// The fraction of 400 positions at which seeds 1 and 2 sample the same token from one soft row
/// (T = 2 over 1000 tokens: two independent draws agree far less than half the time).
inline double seed_agreement() {
  quant::splitmix64 rng{79};
  sampling_case c{1000, {H::make_row(1000, row_kind::soft, rng)}, settings{2.0f, 0, 1.0f, 0.0f, 1}, {0}};
  const auto& e = entry_of(1, mode::sample);
  int same = 0;
  for (std::uint64_t pos = 0; pos < 400; ++pos) {
    c.positions[0] = pos;
    c.sampler.seed = 1;
    const auto a = tokens_of(e, c, {0})[0];
    c.sampler.seed = 2;
    same += a == tokens_of(e, c, {0})[0] ? 1 : 0;
  }
  return same / 400.0;
}

}  // namespace ordo::test::sampling
