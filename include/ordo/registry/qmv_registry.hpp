/// The qmv registry: a constexpr table, sorted by spec name, of every qmv specialization compiled
/// into this build, with its CPU executor and (in GPU builds) its GPU launch. Lookups that miss
/// throw with the spec's name and the tuning preset; there is no fallback to another spec.
#pragma once
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ordo/ops/qmv/entry_points.hpp"
#include "ordo/registry/qmv_space.hpp"
#include "ordo/registry/spec_name.hpp"

namespace ordo::registry {

struct qmv_entry {
  spec_name name;
  std::string_view format;
  std::string_view activation;
  int tier;
  std::string_view order;
  void (*run_cpu)(const ops::qmv::problem&);
  void (*launch_gpu)(const ops::qmv::problem&, gpu::stream_t);  // nullptr in CPU-only builds
};

struct quantize_entry {
  std::string_view activation;
  int block_elems;  // floats per activation block
  int block_bytes;  // bytes per activation block: a row of k floats takes k / block_elems * block_bytes

  void (*run_cpu)(const ops::qmv::quantize_problem&);
  void (*launch_gpu)(const ops::qmv::quantize_problem&, gpu::stream_t);
};

namespace detail {
template <class F, int R, class Order>
constexpr qmv_entry make_qmv_entry() {
  qmv_entry e{make_spec_name("qmv", F::name, R, Order::name), F::name, F::activation::name, R, Order::name,
              &ops::qmv::run_cpu_spec<F, Order, R>, nullptr};
#if defined(ORDO_BUILD_GPU)
  e.launch_gpu = &ops::qmv::launch_gpu_spec<F, Order, R>;
#endif
  return e;
}
template <class A>
constexpr quantize_entry make_quantize_entry() {
  quantize_entry e{A::name, A::block_elems, A::block_bytes, &ops::qmv::quantize_cpu_spec<A>, nullptr};
#if defined(ORDO_BUILD_GPU)
  e.launch_gpu = &ops::qmv::quantize_gpu_spec<A>;
#endif
  return e;
}
}  // namespace detail

inline constexpr auto qmv_table = [] {
  auto table = hana::unpack(qmv_space, [](auto... spec) {
    return std::array<qmv_entry, sizeof...(spec)>{
        detail::make_qmv_entry<typename decltype(+hana::at_c<0>(spec))::type, decltype(+hana::at_c<1>(spec))::value,
                               typename decltype(+hana::at_c<2>(spec))::type>()...};
  });
  std::sort(table.begin(), table.end(), [](const qmv_entry& a, const qmv_entry& b) { return a.name.view() < b.name.view(); });
  return table;
}();

inline constexpr auto quantize_table = hana::unpack(activation_space, [](auto... a) {
  return std::array<quantize_entry, sizeof...(a)>{detail::make_quantize_entry<typename decltype(+a)::type>()...};
});

/// The entry named `name` (e.g. "qmv.mxfp4.r4.ls32"); throws std::out_of_range naming it if absent.
inline const qmv_entry& find_qmv(std::string_view name) {
  const auto it = std::lower_bound(qmv_table.begin(), qmv_table.end(), name,
                                   [](const qmv_entry& e, std::string_view n) { return e.name.view() < n; });
  if (it == qmv_table.end() || it->name.view() != name)
    throw std::out_of_range("qmv spec '" + std::string(name) + "' is not compiled into this build (tune preset " +
                            tune::name + "); `ordo specs` lists the specs that are");
  return *it;
}

inline const qmv_entry& find_qmv(std::string_view format, int tier, std::string_view order_name) {
  return find_qmv(make_spec_name("qmv", format, tier, order_name).view());
}

inline const quantize_entry& find_quantize(std::string_view activation) {
  for (const auto& e : quantize_table)
    if (e.activation == activation) return e;
  throw std::out_of_range("activation quantizer '" + std::string(activation) + "' is not compiled into this build");
}

}  // namespace ordo::registry
