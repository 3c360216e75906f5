/// The selection order of every exact top-k and argmax (router experts, sampled tokens): larger
/// key first, then the lower id; NaN keys rank below every number (among themselves by id); the
/// empty candidate (id −1) below everything. A strict total order on candidates of distinct ids,
/// so a warp may merge proposals in any tree and still pick the same winner.
///
/// A candidate is any two-member aggregate {float key; int id} of its family (the router's
/// {key, id}, sampling's {logit, id}); the members are read positionally, so each family keeps
/// the names that say what its key is.
#pragma once
#include "ordo/gpu/portability.hpp"

namespace ordo::ops {

template <class Candidate>
  requires requires(Candidate c) { c.id; }
ORDO_HD ORDO_FORCEINLINE bool ranks_before(Candidate a, Candidate b) {
  const auto [a_key, a_id] = a;
  const auto [b_key, b_id] = b;
  if (a_id < 0 || b_id < 0) return b_id < 0 && a_id >= 0;
  const bool a_nan = !(a_key == a_key), b_nan = !(b_key == b_key);
  if (a_nan || b_nan) return a_nan == b_nan ? a_id < b_id : b_nan;
  return a_key > b_key || (a_key == b_key && a_id < b_id);
}

}  // namespace ordo::ops
