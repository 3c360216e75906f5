// GPU runners of the op families. Every buffer a problem points at travels whole — all `tier`
// rows of it, padding and poisoned rows included — so what the kernel must not touch is checked
// on the device's copy too.
#include "family_gpu_runners.hpp"

#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "ordo/gpu/device_api.hpp"
#include "ordo/ops/sampling/kernel.hpp"

namespace ordo::test::gpu_runners {

int device_count() { return gpu::device_count(); }

std::string device_name() {
  const auto info = gpu::query_device(0);
  return info.name + " (" + std::to_string(info.multiprocessors) + " SMs)";
}

namespace {
/// A device copy of `count` elements of host memory (nullptr stays nullptr).
template <class T>
struct mirror {
  T* host;
  std::size_t count;
  gpu::device_buffer<std::remove_const_t<T>> device;
  mirror(T* h, std::size_t n) : host(h), count(h ? n : 0), device(h ? n : 0) {
    if (host) device.upload(host, count);
  }
  T* get() const { return host ? device.data() : nullptr; }
  void back() {
    if (host) device.download(const_cast<std::remove_const_t<T>*>(host), count);
  }
};

/// The launcher of entry e: the table is in cpu_entries()'s order (both walk op::for_each_spec).
template <class Entries, class Entry, class Table>
auto launcher_of(const Entries& entries, const Entry& e, const Table& table) {
  const auto i = std::size_t(&e - entries.data());
  if (i >= entries.size() || table.size() != entries.size()) throw std::logic_error("GPU launcher table mismatch");
  return table[i];
}
}  // namespace

void sampling(const ops::sampling::cpu_entry& e, const ops::sampling::problem& p) {
  const std::size_t rows = std::size_t(e.tier);
  mirror<const float> logits(p.logits, rows * p.logit_stride);
  mirror<const std::uint64_t> positions(p.positions, rows);
  mirror<std::int32_t> tokens(p.tokens, rows + 1);  // the harness's sentinel after the last row travels too
  auto q = p;
  q.logits = logits.get(), q.positions = positions.get(), q.tokens = tokens.get();
  launcher_of(ops::sampling::cpu_entries(), e, ops::sampling::gpu_launcher_table())(q, nullptr);
  gpu::synchronize();
  tokens.back();
}

}  // namespace ordo::test::gpu_runners
