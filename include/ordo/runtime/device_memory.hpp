/// The GPU runtime calls the engine makes from host-compiled code (DESIGN §6): whether a device
/// is present, device and managed allocations, a copy to the device, a stream and its
/// synchronization. They are defined in src/runtime/device_memory.cpp, the one runtime TU the
/// GPU compiler builds (a GPU build compiles it as CUDA/HIP; the session, the arenas and the
/// weight upload stay host C++). In a CPU build `present()` is false and every other call throws
/// gpu::error saying that this build has no GPU, so callers need no #ifs.
///
/// Managed memory is what the GPU session's arenas use (sequence state, workspace, step scratch,
/// block vectors): the kernels read and write it, and the step's host loops (the KV table, the
/// gather lists) read it after a stream synchronize. Weights are plain device memory: host code
/// never reads them there (it reads the mapped file).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "ordo/gpu/device_api.hpp"

namespace ordo::runtime::device {

/// Whether this build has GPU kernels and the driver reports a device.
bool present();
/// The device's name and memory ("NVIDIA H200, 139.8 GiB"); throws without a device.
std::string describe();

enum class memory : uint8_t {
  device,   // device memory (cudaMalloc / hipMalloc): only kernels and copies touch it
  managed,  // managed memory (cudaMallocManaged / hipMallocManaged): kernels and host code
};

/// `bytes` (≥ 1) of `m`; throws gpu::error naming the call and the size.
void* allocate(uint64_t bytes, memory m);
/// Frees what allocate returned (null: nothing).
void release(void* p) noexcept;
/// Copies host bytes to device (or managed) memory; synchronous.
void upload(void* dst, const void* src, uint64_t bytes);

gpu::stream_t create_stream();
void destroy_stream(gpu::stream_t s) noexcept;
/// Waits until every launch made on `s` has finished (and reports a kernel's failure).
void synchronize(gpu::stream_t s);

/// An owned allocation of allocate().
struct releaser {
  void operator()(void* p) const noexcept { release(p); }
};
using buffer = std::unique_ptr<void, releaser>;
inline buffer make_buffer(uint64_t bytes, memory m) { return buffer(allocate(bytes, m)); }

/// An owned stream.
class stream {
 public:
  stream() : s_(create_stream()) {}
  ~stream() { destroy_stream(s_); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  gpu::stream_t get() const { return s_; }

 private:
  gpu::stream_t s_;
};

}  // namespace ordo::runtime::device
