/// q8_32 activation rows staged once per CTA in shared memory for the int8-block streaming kernels
/// (qmv/int8_dot_streaming.hpp, moe/streaming.hpp): each block's 32 codes as one 32-byte run (two
/// 16-byte loads), in decoder D's arrangement (D::arrange_x: the order its decoded weight words
/// pair with), and the scales in an array of their own. Staging moves bytes only; the codes a
/// weight code meets are its own activation codes (int8_block_decoders.hpp).
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
/// Stages rows [0, rows) of x (nb blocks a row, row i at x + i·row_bytes, 4-byte aligned) into
/// qs[(i·nb + b)·2 .. +1] and d[i·nb + b], row i in DB's arrangement where use_b(i), else in DA's;
/// rows >= live are staged as zeros and never read from x. Every thread of the CTA calls it (a
/// block a thread); the caller's barrier ends it.
template <class DA, class DB, class UseB>
ORDO_DEVICE inline void stage_q8_32_rows(const std::byte* x, std::size_t row_bytes, int live, int rows, int nb, uint4* qs,
                                         float* d, UseB use_b) {
  const int blocks = rows * nb;
  for (int idx = int(threadIdx.x); idx < blocks; idx += int(blockDim.x)) {
    const int i = idx / nb, b = idx % nb;
    std::uint32_t v[9] = {};
    if (i < live) {
      const auto* src = reinterpret_cast<const std::uint32_t*>(x + std::size_t(i) * row_bytes + std::size_t(b) * q8_32_block_bytes);
#pragma unroll
      for (int w = 0; w < 9; ++w) v[w] = src[w];
    }
    std::uint32_t q[8];
#pragma unroll
    for (int w = 0; w < 8; ++w) q[w] = v[w + 1];
    if (use_b(i)) DB::arrange_x(q);
    else DA::arrange_x(q);
    d[idx] = __uint_as_float(v[0]);
    qs[2 * idx] = make_uint4(q[0], q[1], q[2], q[3]);
    qs[2 * idx + 1] = make_uint4(q[4], q[5], q[6], q[7]);
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
