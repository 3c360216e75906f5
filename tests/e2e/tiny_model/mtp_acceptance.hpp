/// MTP draft acceptance per depth, measured with the double-precision reference on a model file:
/// the target greedy-decodes a continuation of a prompt; at every decoded position p (target
/// token t_{p+1} known, hidden h_p) the MTP block drafts a chain d_1..d_K — d_1 from
/// (t_{p+1}, h_p) at position p+1 (docs/decisions.md D1), d_k from (d_{k-1}, the block's own
/// output state) at p+k on a scratch copy of the block's window — and depth k is accepted when
/// d_1..d_k equal the target's tokens t_{p+2..p+k+1}. The block's window is fed one row per
/// position whose target hidden exists, prompt included (D2). `pairing::ds4` instead feeds
/// (t_p, h_p) at position p and compares d_1 with t_{p+1} (ds4's convention, §13.1), the
/// convention the model was not trained with.
#pragma once

#include <cstdint>
#include <vector>

#include "eval/ref_loader.hpp"
#include "ordo/ref/forward.hpp"

namespace ordo::e2e {

enum class pairing { next_token, ds4 };

struct acceptance {
  std::vector<double> per_depth;  // P(d_k accepted | d_1..d_{k-1} accepted), k = 1..depths
  std::vector<long> tried;        // rounds that reached depth k
  long rounds = 0;                // decoded positions that drafted
  std::vector<int32_t> tokens;    // prompt + the greedy continuation
};

inline int32_t argmax_of(const ref::vec& v) {
  Eigen::Index i = 0;
  v.maxCoeff(&i);  // Eigen returns the first maximum: ties go to the lowest id
  return static_cast<int32_t>(i);
}

inline acceptance measure_mtp_acceptance(const eval::ref_model& m, std::vector<int32_t> prompt, int n_gen,
                                         int depths, pairing pair, const ref::simulations& sims) {
  const auto& c = m.config;
  auto seq = ref::make_sequence_state(c);
  ref::mtp_state mtp{ref::make_layer_state(c, 0)};
  acceptance a;
  a.per_depth.assign(depths, 0.0);
  a.tried.assign(depths, 0);
  std::vector<long> hit(depths, 0);
  a.tokens = prompt;
  const std::size_t n_prompt = prompt.size();
  // Pending drafts from the round at p: compared when the target decides t_{p+2..}.
  struct round {
    std::size_t p;
    std::vector<int32_t> drafts;
  };
  std::vector<round> rounds;
  for (std::size_t p = 0; p < n_prompt + static_cast<std::size_t>(n_gen); ++p) {
    const ref::token_result r = ref::forward_token(m.weights, c, seq, a.tokens[p], sims);
    if (p + 1 >= a.tokens.size()) a.tokens.push_back(argmax_of(r.logits));  // greedy continuation
    if (p + 1 >= n_prompt + static_cast<std::size_t>(n_gen)) break;
    // The MTP row of position p+1 (D1) or p (ds4), kept in the block's window.
    const int32_t tok = pair == pairing::next_token ? a.tokens[p + 1] : a.tokens[p];
    const int pos = pair == pairing::next_token ? static_cast<int>(p) + 1 : static_cast<int>(p);
    ref::token_result d = ref::mtp_forward(m.weights, c, 0, mtp, tok, r.hidden, pos, sims);
    if (p + 1 < n_prompt) continue;  // draft only where the target decodes
    round rd{p, {argmax_of(d.logits)}};
    ref::mtp_state scratch = mtp;
    for (int k = 2; k <= depths; ++k) {
      d = ref::mtp_forward(m.weights, c, 0, scratch, rd.drafts.back(), d.hidden, pos + k - 1, sims);
      rd.drafts.push_back(argmax_of(d.logits));
    }
    rounds.push_back(std::move(rd));
  }
  // Score the rounds whose targets all exist.
  for (const auto& rd : rounds) {
    const std::size_t first = pair == pairing::next_token ? rd.p + 2 : rd.p + 1;  // target of d_1
    if (first + static_cast<std::size_t>(depths) > a.tokens.size()) continue;
    ++a.rounds;
    for (int k = 0; k < depths; ++k) {
      ++a.tried[k];
      if (rd.drafts[k] != a.tokens[first + k]) break;
      ++hit[k];
    }
  }
  for (int k = 0; k < depths; ++k) a.per_depth[k] = a.tried[k] ? double(hit[k]) / double(a.tried[k]) : 0.0;
  return a;
}

}  // namespace ordo::e2e
