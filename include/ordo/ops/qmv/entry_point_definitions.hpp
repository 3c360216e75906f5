/// Definitions of the qmv entry points, for kernels/ TUs only: including this makes the kernel
/// templates object code in the including TU (with the GPU compiler when the backend has one).
#pragma once
#include ORDO_TUNE_HEADER
#include "ordo/ops/qmv/entry_points.hpp"
#include "ordo/ops/qmv/qmv_cpu.hpp"
#include "ordo/ops/qmv/qmv_gpu.hpp"

namespace ordo::ops::qmv {

template <class F, class Order, int R>
void run_cpu_spec(const problem& p) {
  run_cpu<F, Order, R>(p);
}

template <class A>
void quantize_cpu_spec(const quantize_problem& p) {
  quantize_rows_cpu<A>(p);
}

#if defined(ORDO_GPU)
template <class F, class Order, int R>
void launch_gpu_spec(const problem& p, gpu::stream_t stream) {
  launch_gpu<F, Order, R, tune::qmv_policy>(p, stream);
}
template <class A>
void quantize_gpu_spec(const quantize_problem& p, gpu::stream_t stream) {
  quantize_rows_gpu<A>(p, stream);
}
#endif

}  // namespace ordo::ops::qmv
