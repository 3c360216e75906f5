/// Device copies for the GPU runners of the op families: a mirror uploads a whole host buffer
/// (padding, poisoned rows and sentinels included) and downloads it back whole, so what a kernel
/// must not touch is checked on the device's copy too; launcher_of finds a spec's launcher in a
/// family's provisional launcher table. GPU-compiled sources only.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <type_traits>

#include "ordo/gpu/device_api.hpp"

namespace ordo::test::gpu_runners {

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

/// Downloads every mirror (inputs too: a harness that checks its inputs unchanged then checks the
/// device's copies).
template <class... Mirrors>
void back_all(Mirrors&... m) {
  (m.back(), ...);
}

/// The launcher of entry e: the table is in the entry list's order (both walk the op's spec walk).
template <class Entries, class Entry, class Table>
auto launcher_of(const Entries& entries, const Entry& e, const Table& table) {
  const auto i = std::size_t(&e - entries.data());
  if (i >= entries.size() || table.size() != entries.size()) throw std::logic_error("GPU launcher table mismatch");
  return table[i];
}

}  // namespace ordo::test::gpu_runners
