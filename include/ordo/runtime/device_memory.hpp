/// The GPU runtime calls the engine makes from host-compiled code (DESIGN §6): whether a device
/// is present, device and managed allocations, a copy to the device, a stream and its
/// synchronization. They are defined in src/runtime/device_memory.cpp, the one runtime TU the
/// GPU compiler builds (a GPU build compiles it as CUDA/HIP; the session, the arenas and the
/// weight upload stay host C++). In a CPU build `present()` is false and every other call throws
/// gpu::error saying that this build has no GPU, so callers need no #ifs.
///
/// The GPU session's arenas (sequence state, workspace, step scratch, block vectors) are memory
/// that kernels and the step's host loops (the KV table, the gather lists) both touch, the host
/// after a stream synchronize: managed memory (migrating pages) or pinned host memory mapped into
/// the device's address space (kernels read it over the bus; needs no unified-memory driver).
/// Weights are plain device memory: host code never reads them there (it reads the mapped file).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "ordo/gpu/device_api.hpp"
#include "ordo/runtime/kv_table_fill.hpp"

namespace ordo::runtime::device {

/// Whether this build has GPU kernels and the driver reports a device.
bool present();
/// The device's name, memory and the attributes host-visible memory depends on (managed,
/// concurrent managed access, pageable access, host mapping); throws without a device.
std::string describe();

enum class memory : uint8_t {
  device,   // device memory (cudaMalloc / hipMalloc): only kernels and copies touch it
  managed,  // managed memory (cudaMallocManaged / hipMallocManaged): kernels and host code
  pinned,   // page-locked host memory mapped for the device (cudaHostAlloc mapped): both too
};

/// `bytes` (≥ 1) of `m`; throws gpu::error naming the call and the size.
void* allocate(uint64_t bytes, memory m);
/// Frees what allocate(…, m) returned (null: nothing).
void release(void* p, memory m) noexcept;
/// Copies host bytes to device (or managed) memory; synchronous.
void upload(void* dst, const void* src, uint64_t bytes);
/// Queues a copy of `bytes` from pinned host memory to device (or managed) memory on `s`: the
/// launches after it on `s` read the copy; the host must not rewrite `src` before a synchronize.
void upload_async(void* dst, const void* src, uint64_t bytes, gpu::stream_t s);

gpu::stream_t create_stream();
void destroy_stream(gpu::stream_t s) noexcept;
/// Waits until every launch made on `s` has finished (and reports a kernel's failure).
void synchronize(gpu::stream_t s);
/// The device's copy bandwidth in GB/s, bytes read + written (gpu/copy_bandwidth.hpp): the
/// ceiling benchmarks report their floor against.
double copy_bandwidth_gbs();
/// Copies device (or managed) bytes to host memory; synchronous.
void download(void* dst, const void* src, uint64_t bytes);
/// Fills a layer step's KV table on `s` (kv_table_fill.hpp): one launch, a CTA per table row.
void fill_kv_table(const kv_table_fill& f, gpu::stream_t s);

/// Events, as opaque handles (host-compiled callers: launch_profile.hpp).
using event = void*;
event create_event();
void destroy_event(event e) noexcept;
void record_event(event e, gpu::stream_t s);
/// Milliseconds from `from` to `to`, waiting for `to`.
float event_ms(event from, event to);

/// An owned allocation of allocate().
struct releaser {
  memory kind = memory::device;
  void operator()(void* p) const noexcept { release(p, kind); }
};
using buffer = std::unique_ptr<void, releaser>;
inline buffer make_buffer(uint64_t bytes, memory m) { return buffer(allocate(bytes, m), releaser{m}); }

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
