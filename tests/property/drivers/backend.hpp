/// Where a property runs a registry entry: the CPU executor, or a device. A device backend is a
/// factory of `device_mover`s (implemented by the GPU test binaries, tests/gpu): the family's
/// harness tells the mover which host buffers the problem reads and writes, the mover gives back
/// device pointers, the entry's GPU launch runs, and the mover copies the written buffers back —
/// padding included, so sentinels and poison travel both ways.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "ordo/registry/entry.hpp"

namespace ordo::test {

/// Implemented by a family's test harness (tests/property/<op>/harness.hpp).
template <class Op>
struct harness;

struct device_mover {
  virtual ~device_mover() = default;
  /// A device copy of `bytes` host bytes the kernel only reads.
  virtual const std::byte* in(const void* host, std::size_t bytes) = 0;
  /// A device copy of `bytes` host bytes the kernel writes; copied back by finish().
  virtual std::byte* inout(void* host, std::size_t bytes) = 0;
  /// Waits for the launch, copies every inout buffer back to its host buffer.
  virtual void finish() = 0;
};

struct backend {
  std::string name = "cpu";
  std::function<std::unique_ptr<device_mover>()> device;  // empty: the CPU executor

  template <class Op>
  void run(const registry::entry<Op>& e, const typename Op::problem& p) const {
    if (!device) return e.run_cpu(p);
    if (!e.launch_gpu) throw std::runtime_error("no GPU kernel for " + std::string(e.name.view()));
    auto mover = device();
    const auto q = harness<Op>::to_device(e, p, *mover);
    e.launch_gpu(q, nullptr);
    mover->finish();
  }
};

inline backend cpu_backend() { return {}; }

}  // namespace ordo::test
