// The device backend's mover: one device buffer per problem buffer, freed after the launch.
#include "device_backend.hpp"

#include <memory>
#include <vector>

#include "ordo/gpu/device_api.hpp"

namespace ordo::test {

int device_count() { return gpu::device_count(); }

std::string device_name() {
  const auto info = gpu::query_device(0);
  return info.name + " (" + std::to_string(info.multiprocessors) + " SMs)";
}

namespace {
class gpu_mover final : public device_mover {
 public:
  const std::byte* in(const void* host, std::size_t bytes) override { return upload(host, bytes); }
  std::byte* inout(void* host, std::size_t bytes) override {
    std::byte* d = upload(host, bytes);  // the caller's sentinels and poison travel to the device
    written_.push_back({static_cast<std::byte*>(host), d, bytes});
    return d;
  }
  void finish() override {
    gpu::synchronize();
    for (const auto& w : written_) gpu::copy_to_host(w.host, w.device, w.bytes);
  }

 private:
  struct copy_back {
    std::byte* host;
    const std::byte* device;
    std::size_t bytes;
  };
  std::byte* upload(const void* host, std::size_t bytes) {
    buffers_.emplace_back(bytes > 0 ? bytes : 1);
    buffers_.back().upload(static_cast<const std::byte*>(host), bytes);
    return buffers_.back().data();
  }
  std::vector<gpu::device_buffer<std::byte>> buffers_;
  std::vector<copy_back> written_;
};
}  // namespace

backend device_backend() {
  backend be;
  be.name = "gpu";
  be.device = [] { return std::unique_ptr<device_mover>(new gpu_mover); };
  return be;
}

}  // namespace ordo::test
