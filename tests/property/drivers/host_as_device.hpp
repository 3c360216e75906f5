/// A device backend for CPU builds that moves nothing: the mover hands back the host buffers, so
/// an entry's launch_gpu runs on host memory. With an entry whose launch_gpu is a deliberately
/// wrong host function (the CPU executor, then one output bit flipped) it shows, without a GPU,
/// that the E2 driver reports a device result one bit away from the CPU executor's.
#pragma once
#include <memory>

#include "backend.hpp"

namespace ordo::test {

struct host_mover final : device_mover {
  const std::byte* in(const void* host, std::size_t) override { return static_cast<const std::byte*>(host); }
  std::byte* inout(void* host, std::size_t) override { return static_cast<std::byte*>(host); }
  void finish() override {}
};

inline backend host_as_device() {
  backend be;
  be.name = "host as device";
  be.device = [] { return std::unique_ptr<device_mover>(new host_mover); };
  return be;
}

}  // namespace ordo::test
