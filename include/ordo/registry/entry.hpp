/// registry::entry<Op>: one compiled specialization of an op family, as the runtime and the tests
/// see it: its name, axis names, tier, the family's info, its CPU executor and (GPU builds) its
/// launch. The two entry-point templates are declared here and defined only in kernels/ TUs
/// (registry/instantiate.hpp), where the templates become object code.
#pragma once
#include <cstddef>

#include "ordo/gpu/device_api.hpp"
#include "ordo/spec/spec.hpp"

namespace ordo::registry {

inline constexpr std::size_t max_axes = 4;

template <class Op>
struct entry {
  using op = Op;
  using problem = typename Op::problem;
  spec::name_text name;                 // "qmv.mxfp4.r4.ls32"
  spec::name_text axes[max_axes];       // {"mxfp4", "r4", "ls32"}
  std::size_t axis_count = 0;
  int tier = 0;                         // R of the rows<R> axis; 0 for a family without tiers
  typename Op::info info{};
  void (*run_cpu)(const problem&) = nullptr;
  void (*launch_gpu)(const problem&, gpu::stream_t) = nullptr;  // nullptr in CPU-only builds
};

/// The CPU executor of Spec (defined in kernels/).
template <class Spec>
void run_cpu_entry(const typename Spec::op::problem& p);
/// The GPU launch of Spec with the preset's policy (defined in kernels/ of GPU builds).
template <class Spec>
void launch_gpu_entry(const typename Spec::op::problem& p, gpu::stream_t stream);

}  // namespace ordo::registry
