/// For kernels/ TUs only: defines the entry points of a family's specs and emits them into the
/// including TU — one line per TU:
///   ORDO_INSTANTIATE(qmv_q8_0, ops::qmv::op, quant::q8_0);   // the specs whose first axis is q8_0
///   ORDO_INSTANTIATE(quantize_rows, ops::quantize_rows::op);  // every spec of the family
/// The host pass exports an array of the entry points' addresses. The device pass must not:
/// hip-clang treats a constant-initialized const global as device-visible, and the device has no
/// host functions to point at. It names them in a host function instead, which is never emitted
/// for the device but still makes the launchers' kernels instantiate there. This is the one place
/// that workaround is written.
#pragma once
#include <array>
#include <type_traits>

#include ORDO_TUNE_HEADER
#include "ordo/ops/cpu_executor.hpp"
#include "ordo/ops/gpu_entry.hpp"
#include "ordo/registry/entry.hpp"
#include "ordo/registry/space.hpp"

namespace ordo::registry {

template <class Spec>
void run_cpu_entry(const typename Spec::op::problem& p) {
  ops::run_cpu<spec::kernel_t<tune::preset, Spec>>(p);
}

#if defined(ORDO_GPU)
template <class Spec>
void launch_gpu_entry(const typename Spec::op::problem& p, gpu::stream_t stream) {
  ops::launch_gpu<spec::kernel_t<tune::preset, Spec>>(p, stream);
}
#endif

template <class Op>
struct instance {
  void (*run_cpu)(const typename Op::problem&);
  void (*launch_gpu)(const typename Op::problem&, gpu::stream_t);
};

/// The entry points of Op's specs whose first axis is one of FirstAxis (all specs if none).
template <class Op, class... FirstAxis>
constexpr auto instances() {
  constexpr auto mine = hana::filter(space<Op, tune::preset>, [](auto s) {
    using S = typename decltype(s)::type;
    return hana::bool_c<sizeof...(FirstAxis) == 0 || (std::is_same_v<typename S::template axis<0>, FirstAxis> || ...)>;
  });
  return hana::unpack(mine, [](auto... s) {
    return std::array<instance<Op>, sizeof...(s)>{instance<Op>{&run_cpu_entry<typename decltype(s)::type>,
#if defined(ORDO_BUILD_GPU)
                                                               &launch_gpu_entry<typename decltype(s)::type>
#else
                                                               nullptr
#endif
    }...};
  });
}

}  // namespace ordo::registry

#if defined(ORDO_DEVICE_PASS)
#define ORDO_INSTANTIATE(ID, ...)                                                          \
  [[maybe_unused]] static __host__ auto ordo_instances_##ID() {                           \
    using namespace ::ordo;                                                               \
    return ::ordo::registry::instances<__VA_ARGS__>();                                    \
  }                                                                                       \
  static_assert(true)
#else
#define ORDO_INSTANTIATE(ID, ...)                                                          \
  namespace ordo::registry::instantiated {                                                \
  using namespace ::ordo;                                                                 \
  extern const auto ID = ::ordo::registry::instances<__VA_ARGS__>();                      \
  }                                                                                       \
  static_assert(true)
#endif
