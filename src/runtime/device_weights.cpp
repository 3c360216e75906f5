// Weights uploaded once (include/ordo/runtime/device_weights.hpp).
#include "ordo/runtime/device_weights.hpp"

#include <map>

#include "ordo/runtime/row_layout.hpp"

namespace ordo::runtime {

namespace {
// Where each tensor goes in the one allocation, keyed by its bytes in the mapping (a view shared
// by two blocks, e.g. llama's MTP block reusing the main output head, is uploaded once).
std::map<const std::byte*, uint64_t> place_tensors(const model_weights& w, uint64_t& total) {
  std::map<const std::byte*, uint64_t> at;
  total = 0;
  for (const weight_view* v : w.all())
    if (at.emplace(v->data, total).second) total = align_up(total + v->bytes(), 256);
  return at;
}
}  // namespace

device_weights::device_weights(const model_weights& host) {
  const auto at = place_tensors(host, bytes_);
  memory_ = device::make_buffer(bytes_, device::memory::device);
  std::byte* base = static_cast<std::byte*>(memory_.get());
  for (const weight_view* v : host.all()) device::upload(base + at.at(v->data), v->data, v->bytes());
  views_ = host.rebased([&](const weight_view& v) -> const std::byte* { return base + at.at(v.data); });
}

}  // namespace ordo::runtime
