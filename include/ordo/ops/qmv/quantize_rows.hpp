/// Activation quantization for qmv: each float row of k elements becomes k / A::block_elems
/// blocks of activation format A (q8_32, q8_k, act_f32). One block depends only on its own 32 or
/// 256 floats, so a row's blocks are the same whatever else is in the batch; the GPU kernel runs
/// the same A::quantize as the CPU executor (one thread per block).
#pragma once
#include <cstddef>

#include "ordo/gpu/device_api.hpp"
#include "ordo/quant/concepts.hpp"

namespace ordo::ops::qmv {

struct quantize_problem {
  const float* x;              // [rows][x_stride] floats
  std::size_t x_stride;
  std::byte* out;              // [rows][out_row_bytes] activation blocks
  std::size_t out_row_bytes;
  int k;                       // a multiple of A::block_elems
  int rows;
};

template <quant::activation_format A>
void quantize_rows_cpu(const quantize_problem& p) {
  const int nb = p.k / A::block_elems;
  for (int r = 0; r < p.rows; ++r)
    for (int b = 0; b < nb; ++b)
      A::quantize(p.x + std::size_t(r) * p.x_stride + std::size_t(b) * A::block_elems,
                  reinterpret_cast<typename A::block*>(p.out + std::size_t(r) * p.out_row_bytes)[b]);
}

#if defined(ORDO_GPU)
template <quant::activation_format A>
ORDO_GLOBAL void quantize_rows_kernel(quantize_problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int nb = p.k / A::block_elems;
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)nb * p.rows) return;
  const int r = int(i / nb), b = int(i % nb);
  A::quantize(p.x + std::size_t(r) * p.x_stride + std::size_t(b) * A::block_elems,
              reinterpret_cast<typename A::block*>(p.out + std::size_t(r) * p.out_row_bytes)[b]);
#else
  (void)p;
#endif
}

template <quant::activation_format A>
void quantize_rows_gpu(const quantize_problem& p, gpu::stream_t stream) {
  const long long blocks = (long long)(p.k / A::block_elems) * p.rows;
  if (blocks == 0) return;
  quantize_rows_kernel<A><<<unsigned((blocks + 127) / 128), 128, 0, gpu::native(stream)>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
}
#endif

}  // namespace ordo::ops::qmv
