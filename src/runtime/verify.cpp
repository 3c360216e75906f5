// The speculative verifier on the session (include/ordo/runtime/session.hpp, session::verify):
// the verify span as one prefill chunk whose head runs on every row.
#include <stdexcept>
#include <string>

#include "ordo/runtime/session.hpp"

namespace ordo::runtime {

row_outputs session::verify(std::span<const int32_t> tokens) {
  const auto k = static_cast<uint32_t>(tokens.size());
  if (k == 0) throw std::invalid_argument("session::verify: no rows");
  // One chunk of k rows runs at tier_for_chunk(k) only when that tier holds all k rows; else the
  // span would be split into groups (still exact, but not one verify pass).
  if (tier_for_chunk(k) != static_cast<int>(k))
    throw std::invalid_argument("session::verify: " + std::to_string(k) + " rows need a tier of " + std::to_string(k) +
                                " rows (this session's largest tier for them is " + std::to_string(tier_for_chunk(k)) + ")");
  row_outputs out;
  out.every_logits = true;
  prefill(tokens, k, &out);
  return out;
}

}  // namespace ordo::runtime
