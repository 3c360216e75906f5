/// indexer phases shared by the GPU kernels and the CPU executor (ORDO_HD): the query transform
/// (Hadamard then FP4 round trip, per head, every step exact or rounded once in a fixed place) and
/// the score of one key, whose q·key dots come from `dot_of(q_head, key)` (the warp's combined
/// dot — shfl_xor on the GPU, the host butterfly on the CPU). The selection is select.hpp.
#pragma once
#include <math.h>

#include <cstddef>
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/math.hpp"
#include "ordo/ops/attention/body.hpp"
#include "ordo/ops/indexer/problem.hpp"
#include "ordo/ops/indexer/select.hpp"

namespace ordo::ops::indexer {

/// The E2M1 value nearest to a in [0, 6] (ties to the even code: 0.25→0, 0.75→1, 1.25→1, 1.75→2,
/// 2.5→2, 3.5→4, 5→4), decided by exact comparisons with the midpoints.
ORDO_HD ORDO_FORCEINLINE float e2m1_magnitude(float a) {
  if (a <= 0.25f) return 0.0f;
  if (a < 0.75f) return 0.5f;
  if (a <= 1.25f) return 1.0f;
  if (a < 1.75f) return 1.5f;
  if (a <= 2.5f) return 2.0f;
  if (a < 3.5f) return 3.0f;
  if (a <= 5.0f) return 4.0f;
  return 6.0f;
}

/// 2^ceil(log2(amax / 6)) for a normal amax, exactly: with 2^e <= amax < 2^(e+1) it is 2^(e−2)
/// when amax <= 1.5·2^e, else 2^(e−1).
ORDO_HD ORDO_FORCEINLINE float fp4_scale(float amax) {
  const int e = int((numeric::detail::bits_of(amax) >> 23) & 0xffu) - 127;
  return amax <= 1.5f * numeric::detail::pow2(e) ? numeric::detail::pow2(e - 2) : numeric::detail::pow2(e - 1);
}

/// out[0..n) = fp4(hadamard(in[0..n))): the unnormalised butterfly (strides 1, 2, …, n/2;
/// (a, b) → (a + b, a − b)), × 1/sqrt(n) (rsqrt_f32, 0.5 ulp), then per block of 32 (or n): amax
/// floored at 7.052966104933725e-38, scale = 2^ceil(log2(amax/6)), each value → E2M1 × scale.
ORDO_HD ORDO_FORCEINLINE void hadamard_fp4_head(const float* in, float* out, int n) {
  for (int d = 0; d < n; ++d) out[d] = in[d];
#pragma unroll 1
  for (int h = 1; h < n; h *= 2)
    for (int i = 0; i < n; i += 2 * h)
      for (int j = i; j < i + h; ++j) {
        const float a = out[j], b = out[j + h];
        out[j] = a + b;
        out[j + h] = a - b;
      }
  const float s = numeric::rsqrt_f32(float(n));
  for (int d = 0; d < n; ++d) out[d] = out[d] * s;
  const int block = n < 32 ? n : 32;
#pragma unroll 1
  for (int b0 = 0; b0 < n; b0 += block) {
    float amax = 7.052966104933725e-38f;
    for (int d = b0; d < b0 + block; ++d) amax = fabsf(out[d]) > amax ? fabsf(out[d]) : amax;
    const float scale = fp4_scale(amax);
    for (int d = b0; d < b0 + block; ++d) out[d] = copysignf(e2m1_magnitude(fabsf(out[d]) / scale), out[d]) * scale;
  }
}

/// One lane's partial q·key under the Order's dot order, fmaf from +0: attention's (the same
/// definition: its dims in ascending order).
using attention::lane_dot;

/// Row i's transformed head h (the workspace the prepare phase writes).
ORDO_HD ORDO_FORCEINLINE float* fp4_head(const problem& p, int i, int h) {
  return p.q_fp4 + (std::size_t(i) * std::size_t(p.n_heads) + std::size_t(h)) * std::size_t(p.head_dim);
}

/// The prepare phase of (row i, head h).
ORDO_HD ORDO_FORCEINLINE void prepare_head(const problem& p, int i, int h) {
  hadamard_fp4_head(p.q + std::size_t(i) * p.q_stride + std::size_t(h) * std::size_t(p.head_dim), fp4_head(p, i, h),
                    p.head_dim);
}

/// score[c] of row i: relu of each head's dot (a NaN dot counts as 0), × w_h·weight_scale, summed
/// h ascending by fmaf from +0.
#if defined(ORDO_GPU_CUDA)
#pragma nv_exec_check_disable  // the CPU executor passes host callables; the kernels device ones
#endif
template <class Dot>
ORDO_HD ORDO_FORCEINLINE float key_score(const problem& p, int i, int c, Dot&& dot_of) {
  const float* key = p.keys + std::size_t(c) * p.key_stride;
  const float* w = p.head_weights + std::size_t(i) * p.w_stride;
  float s = 0.0f;
#pragma unroll 1
  for (int h = 0; h < p.n_heads; ++h) {
    const float d = dot_of(fp4_head(p, i, h), key);
    s = fmaf(d > 0.0f ? d : 0.0f, w[h] * p.weight_scale, s);
  }
  return s;
}

ORDO_HD ORDO_FORCEINLINE const float* row_scores(const problem& p, int i) { return p.scores + std::size_t(i) * p.score_stride; }

}  // namespace ordo::ops::indexer
