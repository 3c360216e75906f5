/// sampling phases shared by the GPU kernel and the CPU executor (ORDO_HD): one worker's best
/// token among its share of a row (ids t, t + workers, …), the rule that merges two bests, and the
/// whole of mode sample (sample_row), written once over a `Reducer` that evaluates one function per
/// chunk: the CPU executor loops over the chunks, the GPU kernel gives each thread one.
///
/// The one order of every float sum of mode sample, a function of n_vocab only: the row splits into
/// chunks_per_row chunks of chunk_length(n) consecutive ids (the last ones may be short or empty);
/// a chunk sums its ids in increasing order starting from 0; the row folds the chunk sums left to
/// right starting from 0. The tier decides only how many rows share a pass.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/numeric/math.hpp"
#include "ordo/ops/ranking.hpp"
#include "ordo/ops/sampling/philox.hpp"
#include "ordo/ops/sampling/problem.hpp"

namespace ordo::ops::sampling {

/// A candidate token: its logit and id; id −1 is the empty candidate.
struct candidate {
  float logit;
  int id;
};

/// Worker t's best token of row i among ids t, t + workers, t + 2·workers, ….
ORDO_HD ORDO_FORCEINLINE candidate worker_best(const problem& p, int i, int t, int workers) {
  const float* z = p.logits + std::size_t(i) * p.logit_stride;
  candidate best{0.0f, -1};
#pragma unroll 1
  for (int v = t; v < p.n_vocab; v += workers) {
    const candidate c{z[v], v};
    if (ranks_before(c, best)) best = c;
  }
  return best;
}

inline constexpr int chunks_per_row = 256;

ORDO_HD ORDO_FORCEINLINE int chunk_length(int n) { return (n + chunks_per_row - 1) / chunks_per_row; }
ORDO_HD ORDO_FORCEINLINE int chunk_begin(int n, int c) {
  const long long b = (long long)c * chunk_length(n);
  return b < n ? int(b) : n;
}

/// The rank of token `id` as one integer: larger ranks before. The float's bits in monotone order
/// (NaN lowest) times n, plus n − 1 − id, so equal logits rank by the lower id. Keys lie in
/// [0, 2^32·n): top-k and top-p keep the tokens whose key is at least a cut.
ORDO_HD ORDO_FORCEINLINE std::uint64_t rank_key(float z, int id, int n) {
  const std::uint32_t b = z == 0.0f ? 0u : numeric::detail::bits_of(z);  // −0 ranks as +0, as in ranks_before
  const std::uint32_t ordered = !(z == z) ? 0u : (b & 0x80000000u) ? ~b : (b | 0x80000000u);
#if defined(ORDO_MUTANT_SAMPLING_TIES_TO_HIGHEST_ID)
  return std::uint64_t(ordered) * std::uint64_t(n) + std::uint64_t(id);  // mutant: ties to the highest id
#else
  return std::uint64_t(ordered) * std::uint64_t(n) + std::uint64_t(n - 1 - id);
#endif
}

ORDO_HD ORDO_FORCEINLINE std::uint64_t key_limit(int n) { return (std::uint64_t(1) << 32) * std::uint64_t(n); }

/// One row of mode sample as the filters see it.
struct row_view {
  const float* z;     // [n]
  int n;
  float z_max;        // the best token's logit, finite
  float temperature;  // > 0
};

/// Token j's weight if it survives the cut (rank key >= cut) and min-p (weight >= min_p), else 0.
/// NaN and −inf logits weigh 0. The best token weighs exp(0) = 1 exactly.
ORDO_HD ORDO_FORCEINLINE float kept_weight(const row_view& r, int j, std::uint64_t cut, float min_p) {
  const float z = r.z[j];
  if (!(z > -numeric::detail::float_of(0x7f800000u))) return 0.0f;
  if (cut != 0 && rank_key(z, j, r.n) < cut) return 0.0f;
  const float w = numeric::exp_f32((z - r.z_max) / r.temperature);
  return w >= min_p ? w : 0.0f;
}

/// Chunk c's weight sum in id order (min_p = 0: no min-p filter).
ORDO_HD ORDO_FORCEINLINE float chunk_weight(const row_view& r, int c, std::uint64_t cut, float min_p) {
  float acc = 0.0f;
  const int e = chunk_begin(r.n, c + 1);
#pragma unroll 1
  for (int j = chunk_begin(r.n, c); j < e; ++j) acc += kept_weight(r, j, cut, min_p);
  return acc;
}

/// The count of tokens in chunk c with a number logit and a rank key >= cut.
ORDO_HD ORDO_FORCEINLINE int chunk_count(const row_view& r, int c, std::uint64_t cut) {
  int count = 0;
  const int e = chunk_begin(r.n, c + 1);
#pragma unroll 1
  for (int j = chunk_begin(r.n, c); j < e; ++j) count += (r.z[j] == r.z[j] && rank_key(r.z[j], j, r.n) >= cut) ? 1 : 0;
  return count;
}

/// The best token of chunk c (−1 when empty).
ORDO_HD ORDO_FORCEINLINE int chunk_best(const float* z, int n, int c) {
  candidate best{0.0f, -1};
  const int e = chunk_begin(n, c + 1);
#pragma unroll 1
  for (int j = chunk_begin(n, c); j < e; ++j)
    if (ranks_before(candidate{z[j], j}, best)) best = candidate{z[j], j};
  return best.id;
}

/// The left fold of the chunk sums, from 0.
ORDO_HD ORDO_FORCEINLINE float fold_chunks(const float* sums) {
  float acc = 0.0f;
#pragma unroll 1
  for (int c = 0; c < chunks_per_row; ++c) acc += sums[c];
  return acc;
}

/// The largest cut in [lo, key_limit(n)) for which reaches(cut) holds, given that reaches(lo) holds
/// (or lo when it does not) and that reaches is monotone: true up to a point, false after. Every
/// value where reaches changes is a token's key, so the cut keeps a ranked prefix exactly.
template <class Reaches>
ORDO_HD ORDO_FORCEINLINE std::uint64_t largest_cut(std::uint64_t lo, int n, Reaches reaches) {
  std::uint64_t hi = key_limit(n);
#pragma unroll 1
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (reaches(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/// Mode sample for one row (problem.hpp has the definition). `red` evaluates a function of the
/// chunk index for every chunk and returns the chunks_per_row results, the same array for every
/// caller; every decision below depends only on those arrays, so all GPU threads of a row take the
/// same branches.
template <class Reducer>
ORDO_HD ORDO_FORCEINLINE int sample_row(const float* z, int n, const settings& s, std::uint64_t position, Reducer& red) {
  const int* bests = red.ints([&](int c) { return chunk_best(z, n, c); });
  candidate best{0.0f, -1};
#pragma unroll 1
  for (int c = 0; c < chunks_per_row; ++c)
    if (bests[c] >= 0 && ranks_before(candidate{z[bests[c]], bests[c]}, best)) best = candidate{z[bests[c]], bests[c]};
  const float inf = numeric::detail::float_of(0x7f800000u);
  if (!(s.temperature > 0.0f) || !(best.logit > -inf && best.logit < inf)) return best.id;

  const row_view r{z, n, best.logit, s.temperature};
  std::uint64_t cut = 0;
  if (s.top_k > 0 && s.top_k < n)
    cut = largest_cut(0, n, [&](std::uint64_t k) {
      const int* counts = red.ints([&](int c) { return chunk_count(r, c, k); });
      int total = 0;
#pragma unroll 1
      for (int c = 0; c < chunks_per_row; ++c) total += counts[c];
      return total >= s.top_k;
    });
  if (s.top_p < 1.0f) {
    const float target = s.top_p * fold_chunks(red.floats([&](int c) { return chunk_weight(r, c, cut, 0.0f); }));
    cut = largest_cut(cut, n, [&](std::uint64_t k) {
      return fold_chunks(red.floats([&](int c) { return chunk_weight(r, c, k, 0.0f); })) >= target;
    });
  }

  // The draw: target = u·total < total (philox.hpp), found by the same left fold that made total,
  // then inside the chosen chunk by the same sequential sum that made its chunk sum; the first
  // position where the running sum passes the target is a token of positive kept weight.
  const float* sums = red.floats([&](int c) { return chunk_weight(r, c, cut, s.min_p); });
  const float target = uniform_of(s.seed, position) * fold_chunks(sums);
  float acc = 0.0f;
#if defined(ORDO_MUTANT_SAMPLING_DRAW_ORDER)
  for (int c = chunks_per_row - 1; c >= 0; --c) {  // mutant: the chunks walked from the last
#else
#pragma unroll 1
  for (int c = 0; c < chunks_per_row; ++c) {
#endif
    if (!(acc + sums[c] > target)) {
      acc += sums[c];
      continue;
    }
    float local = 0.0f;
    const int e = chunk_begin(n, c + 1);
#pragma unroll 1
    for (int j = chunk_begin(n, c); j < e; ++j) {
      local += kept_weight(r, j, cut, s.min_p);
      if (acc + local > target) return j;
    }
    break;
  }
  return best.id;  // unreachable: target < total (a guard, not a rule)
}

}  // namespace ordo::ops::sampling
