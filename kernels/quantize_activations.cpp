// Activation quantizers for qmv (q8_32, q8_k, act_f32), CPU executor and GPU kernel.
#include "ordo/ops/qmv/entry_point_definitions.hpp"
#include "ordo/registry/qmv_space.hpp"

namespace ordo::registry {
struct quantize_instance {
  void (*run_cpu)(const ops::qmv::quantize_problem&);
  void (*launch_gpu)(const ops::qmv::quantize_problem&, gpu::stream_t);
};
}  // namespace ordo::registry

// Host pass: the exported array; device pass: a host-only function naming the same entry points
// so their kernels are instantiated for the device (see registry/qmv_instantiate.hpp).
#if defined(ORDO_DEVICE_PASS)
[[maybe_unused]] static __host__ auto ordo_quantize_instances_device_pass() {
  return boost::hana::unpack(ordo::registry::activation_space, [](auto... a) {
    return std::array<void (*)(const ordo::ops::qmv::quantize_problem&, ordo::gpu::stream_t), sizeof...(a)>{
        &ordo::ops::qmv::quantize_gpu_spec<typename decltype(+a)::type>...};
  });
}
#else
extern const auto ordo_quantize_instances = boost::hana::unpack(ordo::registry::activation_space, [](auto... a) {
  return std::array<ordo::registry::quantize_instance, sizeof...(a)>{ordo::registry::quantize_instance{
      &ordo::ops::qmv::quantize_cpu_spec<typename decltype(+a)::type>,
#if defined(ORDO_BUILD_GPU)
      &ordo::ops::qmv::quantize_gpu_spec<typename decltype(+a)::type>
#else
      nullptr
#endif
  }...};
});
#endif
