// Weights uploaded once (include/ordo/runtime/device_weights.hpp).
#include "ordo/runtime/device_weights.hpp"

#include "ordo/runtime/weight_placement.hpp"

namespace ordo::runtime {

device_weights::device_weights(const model_weights& host) {
  const weight_placement at = place_weights(host);
  bytes_ = at.bytes;
  memory_ = device::make_buffer(bytes_, device::memory::device);
  std::byte* base = static_cast<std::byte*>(memory_.get());
  for (const weight_view* v : host.all()) device::upload(base + at.at(*v), v->data, v->bytes());
  views_ = host.rebased([&](const weight_view& v) -> const std::byte* { return base + at.at(v); });
}

}  // namespace ordo::runtime
