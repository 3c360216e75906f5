/// For kernels/ TUs: emits the qmv entry points of one format (every tier and order of the space
/// for that format) into the including TU, by taking their addresses in an exported array.
#pragma once
#include <array>

#include "ordo/ops/qmv/entry_point_definitions.hpp"
#include "ordo/registry/qmv_space.hpp"

namespace ordo::registry {

struct qmv_instance {
  void (*run_cpu)(const ops::qmv::problem&);
  void (*launch_gpu)(const ops::qmv::problem&, gpu::stream_t);
};

template <class Format>
constexpr auto qmv_instances_of() {
  constexpr auto mine = hana::filter(qmv_space, [](auto spec) {
    return hana::bool_c<std::is_same_v<typename decltype(+hana::at_c<0>(spec))::type, Format>>;
  });
  return hana::unpack(mine, [](auto... spec) {
    return std::array<qmv_instance, sizeof...(spec)>{qmv_instance{
        &ops::qmv::run_cpu_spec<Format, typename decltype(+hana::at_c<2>(spec))::type,
                                decltype(+hana::at_c<1>(spec))::value>,
#if defined(ORDO_BUILD_GPU)
        &ops::qmv::launch_gpu_spec<Format, typename decltype(+hana::at_c<2>(spec))::type,
                                   decltype(+hana::at_c<1>(spec))::value>
#else
        nullptr
#endif
    }...};
  });
}

}  // namespace ordo::registry

/// Emits the entry points of quant::FORMAT in this TU (one kernels/qmv_<format>.cpp each).
/// The host pass exports an array of their addresses. The device pass must not: hip-clang treats a
/// constant-initialized const global as device-visible, and the device has no host functions to
/// point at. It names them in a host function instead, which is never emitted for the device but
/// still makes the launchers' kernels instantiate there.
#if defined(ORDO_DEVICE_PASS)
#define ORDO_INSTANTIATE_QMV_FORMAT(FORMAT)                                                          \
  [[maybe_unused]] static __host__ auto ordo_qmv_instances_##FORMAT() {                               \
    return ::ordo::registry::qmv_instances_of<::ordo::quant::FORMAT>();                               \
  }                                                                                                   \
  static_assert(true)
#else
#define ORDO_INSTANTIATE_QMV_FORMAT(FORMAT)                                                          \
  extern const auto ordo_qmv_instances_##FORMAT = ::ordo::registry::qmv_instances_of<::ordo::quant::FORMAT>()
#endif
