/// q8_32 activation rows staged once per CTA in shared memory for the int8-block streaming kernels
/// (qmv/int8_dot_streaming.hpp, moe/streaming.hpp): each block's 32 codes as two 16-byte halves,
/// in decoder D's arrangement (D::arrange_x: the order its decoded weight words pair with); the
/// first halves of every block in one array, the second halves in the next, and the scales in an
/// array of their own. The lanes of a warp read consecutive blocks, so each quarter-warp's 16-byte
/// loads cover 128 consecutive bytes, every bank once; with a block's 32 bytes together they
/// covered 256, each bank twice (ncu, session 20: the staged activations' LDS.128 at 2× bank
/// conflicts). Staging moves bytes only; the codes a weight code meets are its own activation
/// codes (int8_block_decoders.hpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/quant/q8_32.hpp"

namespace ordo::ops::qmv {

inline constexpr int q8_32_block_bytes = int(sizeof(quant::q8_32::block));  // 36: f32 d, 32 codes

/// Shared-memory bytes of `rows` staged rows of nb blocks (codes, then scales).
ORDO_HD inline constexpr std::size_t staged_q8_32_bytes(int rows, int nb) { return std::size_t(rows) * std::size_t(nb) * (32 + 4); }

#if defined(ORDO_GPU_CUDA) && defined(ORDO_DEVICE_PASS)
/// The code halves of `rows` staged rows of nb blocks at qs: block idx = i·nb + b has its first 16
/// bytes at lo[idx], its last at hi[idx].
struct staged_q8_32_codes {
  const uint4* lo;
  const uint4* hi;
  ORDO_DEVICE ORDO_FORCEINLINE staged_q8_32_codes(const uint4* qs, int rows, int nb) : lo(qs), hi(qs + rows * nb) {}
  /// Block idx's 8 code words.
  ORDO_DEVICE ORDO_FORCEINLINE void load(int idx, std::uint32_t (&q)[8]) const {
    const uint4 x0 = lo[idx], x1 = hi[idx];
    q[0] = x0.x, q[1] = x0.y, q[2] = x0.z, q[3] = x0.w, q[4] = x1.x, q[5] = x1.y, q[6] = x1.z, q[7] = x1.w;
  }
};

/// Stages rows [0, rows) of x (nb blocks a row, row i at x + i·row_bytes, 4-byte aligned) into
/// qs (staged_q8_32_codes' halves) and d[i·nb + b], row i in DB's arrangement where use_b(i), else in DA's;
/// rows >= live are staged as zeros and never read from x. Every thread of the CTA calls it (a
/// block a thread at a time, `batch` blocks' loads issued before any is stored: one block's loads
/// then its stores waited a memory latency a block); the caller's barrier ends it.
template <class DA, class DB, class UseB>
ORDO_DEVICE inline void stage_q8_32_rows(const std::byte* x, std::size_t row_bytes, int live, int rows, int nb, uint4* qs,
                                         float* d, UseB use_b) {
  constexpr int batch = 4;
  const int blocks = rows * nb, step = int(blockDim.x);
#pragma unroll 1
  for (int idx0 = int(threadIdx.x); idx0 < blocks; idx0 += batch * step) {
    std::uint32_t v[batch][9];
#pragma unroll
    for (int k = 0; k < batch; ++k) {
      const int idx = idx0 + k * step, i = idx / nb, b = idx % nb;
#pragma unroll
      for (int w = 0; w < 9; ++w) v[k][w] = 0;
      if (idx < blocks && i < live) {
        const auto* src = reinterpret_cast<const std::uint32_t*>(x + std::size_t(i) * row_bytes + std::size_t(b) * q8_32_block_bytes);
#pragma unroll
        for (int w = 0; w < 9; ++w) v[k][w] = src[w];
      }
    }
#pragma unroll
    for (int k = 0; k < batch; ++k) {
      const int idx = idx0 + k * step;
      if (idx >= blocks) break;
      std::uint32_t q[8];
#pragma unroll
      for (int w = 0; w < 8; ++w) q[w] = v[k][w + 1];
      if (use_b(idx / nb)) DB::arrange_x(q);
      else DA::arrange_x(q);
      d[idx] = __uint_as_float(v[k][0]);
      qs[idx] = make_uint4(q[0], q[1], q[2], q[3]);
      qs[blocks + idx] = make_uint4(q[4], q[5], q[6], q[7]);
    }
  }
}
/// Copies `bytes` (a multiple of 16; src and dst 16-byte aligned) from global to shared memory as
/// 16-byte granules, `batch` loads a thread issued before any is stored. Every thread of the CTA
/// calls it; the caller's barrier ends it. Bytes only: no value changes.
ORDO_DEVICE inline void copy_granules_cta(uint4* dst, const uint4* src, std::size_t bytes) {
  constexpr int batch = 4;
  const int granules = int(bytes / 16), step = int(blockDim.x);
#pragma unroll 1
  for (int g0 = int(threadIdx.x); g0 < granules; g0 += batch * step) {
    uint4 v[batch];
#pragma unroll
    for (int k = 0; k < batch; ++k)
      if (g0 + k * step < granules) v[k] = src[g0 + k * step];
#pragma unroll
    for (int k = 0; k < batch; ++k)
      if (g0 + k * step < granules) dst[g0 + k * step] = v[k];
  }
}
/// All rows in D's arrangement.
template <class D>
ORDO_DEVICE inline void stage_q8_32_rows(const std::byte* x, std::size_t row_bytes, int live, int rows, int nb, uint4* qs,
                                         float* d) {
  stage_q8_32_rows<D, D>(x, row_bytes, live, rows, nb, qs, d, [](int) { return false; });
}
#endif

}  // namespace ordo::ops::qmv
