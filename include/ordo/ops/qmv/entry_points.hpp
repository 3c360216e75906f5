/// Declarations of the per-spec entry points of qmv. They are defined (instantiated) only in
/// kernels/, where the op templates become object code; the registry takes their addresses.
#pragma once
#include "ordo/gpu/device_api.hpp"
#include "ordo/ops/qmv/qmv.hpp"
#include "ordo/ops/qmv/quantize_rows.hpp"

namespace ordo::ops::qmv {

/// The CPU executor of spec (F, Order, R).
template <class F, class Order, int R>
void run_cpu_spec(const problem& p);

/// The GPU launch of spec (F, Order, R) with the build's tuning policy. Only in GPU builds.
template <class F, class Order, int R>
void launch_gpu_spec(const problem& p, gpu::stream_t stream);

/// Activation quantization for activation format A.
template <class A>
void quantize_cpu_spec(const quantize_problem& p);
template <class A>
void quantize_gpu_spec(const quantize_problem& p, gpu::stream_t stream);

}  // namespace ordo::ops::qmv
