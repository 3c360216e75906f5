/// The indexer's radix selection: the same top-k as select.hpp (ops::ranks_before: larger score
/// first, then the lower id, NaN below every number), found in O(n) work instead of k rounds.
///
/// Each score maps to a 32-bit rank key, larger key = ranks earlier, equal keys exactly where
/// ranks_before falls back to the id: −0 and +0 share a key (they compare equal), every NaN has key
/// 0 (below −inf, whatever its payload). Four passes over 8-bit digits, most significant first,
/// count the keys of the current bucket by digit and descend into the digit that holds the k-th
/// largest key; after the last pass the bucket is one key value T, the k-th key, and `need` says how
/// many members equal to T the top k takes. The selection is every member with key > T plus the
/// `need` lowest ids with key == T (the tie rule), written in ascending id order: a member's slot is
/// the count of taken members with lower ids, a prefix count of (key > T, key == T).
///
/// These ORDO_HD pieces are the algorithm for both executors: the GPU builds each histogram with
/// a CTA's integer shared-memory atomics and the slots with a block prefix sum (kernel.hpp), the CPU
/// executor with plain loops (select_radix below); integer counts are exact in any order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"

namespace ordo::ops::indexer {

inline constexpr int radix_digit_bits = 8;
inline constexpr int radix_buckets = 1 << radix_digit_bits;
inline constexpr int radix_passes = 32 / radix_digit_bits;

/// The score's rank key (see above): the sign-magnitude order of the float bits made unsigned.
ORDO_HD ORDO_FORCEINLINE std::uint32_t rank_key(float s) {
  if (!(s == s)) return 0u;  // every NaN, below −inf (key 0x007fffff)
#if defined(ORDO_MUTANT_RADIX_SIGNED_ZERO)  // mutation-check test targets only: −0 ranks below +0
  const std::uint32_t b = numeric::detail::bits_of(s);
#else
  const std::uint32_t b = s == 0.0f ? 0u : numeric::detail::bits_of(s);  // −0 is +0
#endif
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

/// What the passes know of the k-th key T.
struct radix_threshold {
  std::uint32_t prefix;  // T's digits found so far (after the last pass: T)
  std::uint32_t mask;    // the bits of prefix found
  int need;              // members of the current bucket the top k still takes (>= 1)
  int ties;              // members in the current bucket (after the last pass: how many equal T)
};

/// Before the first pass: the bucket is every one of `count` members, of which k are taken.
ORDO_HD ORDO_FORCEINLINE radix_threshold radix_start(int count, int k) {
#if defined(ORDO_MUTANT_RADIX_KTH_OFF_BY_ONE)  // mutation-check test targets only: the passes find the (k+1)-th
  return {0u, 0u, k + 1, count};
#else
  return {0u, 0u, k, count};
#endif
}

ORDO_HD ORDO_FORCEINLINE int radix_shift(int pass) { return 32 - radix_digit_bits * (pass + 1); }

/// Whether a key lies in the current bucket (every key does before the first pass).
ORDO_HD ORDO_FORCEINLINE bool radix_in_bucket(std::uint32_t key, const radix_threshold& t) { return (key & t.mask) == t.prefix; }

/// The key's digit of this pass (its histogram bucket).
ORDO_HD ORDO_FORCEINLINE int radix_digit(std::uint32_t key, int pass) {
  return int((key >> radix_shift(pass)) & std::uint32_t(radix_buckets - 1));
}

/// The walk of one pass's descent over digits hi, hi−1, …, lo: hist[d] counts the bucket's
/// members of digit d; the members of larger digits are all taken, so the k-th lies in the first
/// digit whose count reaches what is still needed (`need`, reduced by the digits walked past).
/// Stops at lo, which the caller knows holds it.
ORDO_HD ORDO_FORCEINLINE int radix_walk(const int* hist, int& need, int hi, int lo) {
  int d = hi;
  for (; d > lo && need > hist[d]; --d) need -= hist[d];
  return d;
}

/// The descent into digit d of this pass: the bucket narrows to it.
ORDO_HD ORDO_FORCEINLINE void radix_narrow(const int* hist, radix_threshold& t, int pass, int d) {
  t.prefix |= std::uint32_t(d) << radix_shift(pass);
  t.mask |= std::uint32_t(radix_buckets - 1) << radix_shift(pass);
  t.ties = hist[d];
}

/// One pass's descent over every digit (the CPU executor's; the GPU splits the same walk among
/// a warp's lanes, kernel.hpp).
ORDO_HD ORDO_FORCEINLINE void radix_descend(const int* hist, radix_threshold& t, int pass) {
  radix_narrow(hist, t, pass, radix_walk(hist, t.need, radix_buckets - 1, 0));
}

/// How many of the first `equal_before` members equal to T (in id order) the top k takes: the
/// lowest ids, `need` of them.
ORDO_HD ORDO_FORCEINLINE int radix_ties_taken(int equal_before, const radix_threshold& t) {
#if defined(ORDO_MUTANT_RADIX_TIES_TO_HIGHEST_ID)  // mutation-check test targets only: the highest ids
  const int skipped = t.ties - t.need;
  return equal_before > skipped ? equal_before - skipped : 0;
#else
  return equal_before < t.need ? equal_before : t.need;
#endif
}

/// The walk of the ordered compaction: the slot of the member of key `key` (−1: not taken), given
/// how many members before it in id order have key > T (above) and key == T (equal); advances them.
ORDO_HD ORDO_FORCEINLINE int radix_slot(std::uint32_t key, int& above, int& equal, const radix_threshold& t) {
  if (key > t.prefix) return above++ + radix_ties_taken(equal, t);
  if (key != t.prefix) return -1;
  const int before = radix_ties_taken(equal, t), after = radix_ties_taken(++equal, t);
  return after > before ? above + before : -1;
}

/// The CPU executor's radix top-k of scores[0..count): the selected ids ascending (all of them
/// when count <= k).
inline std::vector<std::int32_t> select_radix(const float* scores, int count, int k) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(count < k ? count : k));
  if (count <= k) {
    for (int c = 0; c < count; ++c) out[std::size_t(c)] = c;
    return out;
  }
  radix_threshold t = radix_start(count, k);
  for (int pass = 0; pass < radix_passes; ++pass) {
    int hist[radix_buckets] = {};
    for (int c = 0; c < count; ++c) {
      const std::uint32_t key = rank_key(scores[c]);
      if (radix_in_bucket(key, t)) ++hist[radix_digit(key, pass)];
    }
    radix_descend(hist, t, pass);
  }
  int above = 0, equal = 0;
  for (int c = 0; c < count; ++c) {
    const int slot = radix_slot(rank_key(scores[c]), above, equal, t);
    if (slot >= 0 && slot < k) out[std::size_t(slot)] = c;  // always < k unless a pass is wrong
  }
  return out;
}

}  // namespace ordo::ops::indexer
