// GPU runtime calls for host code (include/ordo/runtime/device_memory.hpp). A GPU build compiles
// this TU with the kernel compiler (src/runtime/CMakeLists.txt), which defines ORDO_GPU; a CPU
// build compiles it as C++ and every call but present() says there is no GPU.
#include "ordo/runtime/device_memory.hpp"

#if defined(ORDO_GPU)
#include "ordo/gpu/copy_bandwidth.hpp"
#endif

#include <cstdio>

namespace ordo::runtime::device {

#if defined(ORDO_GPU)

namespace {
// HIP and CUDA spell the device attributes differently (hipDeviceAttribute* vs cudaDevAttr*),
// and HIP names its pinned allocation hipHostMalloc/hipHostFree, so these few names are mapped here.
#if defined(ORDO_GPU_HIP)
using device_attribute = hipDeviceAttribute_t;
constexpr device_attribute attr_managed = hipDeviceAttributeManagedMemory;
constexpr device_attribute attr_concurrent_managed = hipDeviceAttributeConcurrentManagedAccess;
constexpr device_attribute attr_pageable = hipDeviceAttributePageableMemoryAccess;
constexpr device_attribute attr_map_host = hipDeviceAttributeCanMapHostMemory;
constexpr device_attribute attr_unified = hipDeviceAttributeUnifiedAddressing;
gpu::status_t alloc_pinned(void** p, std::size_t n) { return hipHostMalloc(p, n, hipHostMallocMapped | hipHostMallocPortable); }
gpu::status_t free_pinned(void* p) { return hipHostFree(p); }
#else
using device_attribute = cudaDeviceAttr;
constexpr device_attribute attr_managed = cudaDevAttrManagedMemory;
constexpr device_attribute attr_concurrent_managed = cudaDevAttrConcurrentManagedAccess;
constexpr device_attribute attr_pageable = cudaDevAttrPageableMemoryAccess;
constexpr device_attribute attr_map_host = cudaDevAttrCanMapHostMemory;
constexpr device_attribute attr_unified = cudaDevAttrUnifiedAddressing;
gpu::status_t alloc_pinned(void** p, std::size_t n) { return cudaHostAlloc(p, n, cudaHostAllocMapped | cudaHostAllocPortable); }
gpu::status_t free_pinned(void* p) { return cudaFreeHost(p); }
#endif
}  // namespace

bool present() { return gpu::device_count() > 0; }

std::string describe() {
  const gpu::device_info d = gpu::query_device(0);
  char mem[32];
  std::snprintf(mem, sizeof mem, "%.1f GiB", double(d.global_bytes) / double(1ull << 30));
  auto attr = [](device_attribute a) {
    int v = -1;
    (void)ORDO_GPU_API(DeviceGetAttribute)(&v, a, 0);
    return std::to_string(v);
  };
  return d.name + ", " + mem + ", " + std::to_string(d.multiprocessors) + " multiprocessors; managed " +
         attr(attr_managed) + ", concurrent managed access " + attr(attr_concurrent_managed) +
         ", pageable access " + attr(attr_pageable) + ", host-mapped memory " + attr(attr_map_host) +
         ", unified addressing " + attr(attr_unified);
}

void* allocate(uint64_t bytes, memory m) {
  void* p = nullptr;
  const std::size_t n = bytes ? bytes : 1;
  const gpu::status_t s = m == memory::managed ? ORDO_GPU_API(MallocManaged)(&p, n, ORDO_GPU_API(MemAttachGlobal))
                         : m == memory::pinned  ? alloc_pinned(&p, n)
                                                : ORDO_GPU_API(Malloc)(&p, n);
  const char* what = m == memory::managed ? "managed" : m == memory::pinned ? "pinned host" : "device";
  if (s != gpu::status_ok) {
    (void)ORDO_GPU_API(GetLastError)();
    throw gpu::error(std::string(what) + " allocation of " + std::to_string(bytes) + " bytes failed: " + gpu::status_string(s));
  }
  if (m == memory::pinned) {
    // Unified addressing maps the host pointer at the same address; a device that maps it
    // elsewhere cannot take this memory (the step's problems carry one pointer for both).
    void* d = nullptr;
    if (ORDO_GPU_API(HostGetDevicePointer)(&d, p, 0) != gpu::status_ok || d != p) {
      (void)ORDO_GPU_API(GetLastError)();
      (void)free_pinned(p);
      throw gpu::error("pinned host memory is not mapped at its host address on this device (no unified addressing)");
    }
  }
  return p;
}

void release(void* p, memory m) noexcept {
  if (!p) return;
  if (m == memory::pinned) (void)free_pinned(p);
  else (void)ORDO_GPU_API(Free)(p);
}

void upload(void* dst, const void* src, uint64_t bytes) {
  ORDO_GPU_CHECK(ORDO_GPU_API(Memcpy)(dst, src, bytes, ORDO_GPU_API(MemcpyHostToDevice)));
}

void upload_async(void* dst, const void* src, uint64_t bytes, gpu::stream_t s) {
  ORDO_GPU_CHECK(ORDO_GPU_API(MemcpyAsync)(dst, src, bytes, ORDO_GPU_API(MemcpyDefault), gpu::native(s)));
}

gpu::stream_t create_stream() {
  gpu::native_stream_t s{};
  ORDO_GPU_CHECK(ORDO_GPU_API(StreamCreate)(&s));  // blocking: ordered with the synchronous copies
  return static_cast<gpu::stream_t>(s);
}

void destroy_stream(gpu::stream_t s) noexcept {
  if (s) (void)ORDO_GPU_API(StreamDestroy)(gpu::native(s));
}

void synchronize(gpu::stream_t s) { ORDO_GPU_CHECK(ORDO_GPU_API(StreamSynchronize)(gpu::native(s))); }

double copy_bandwidth_gbs() { return gpu::copy_bandwidth_gbs(); }

void download(void* dst, const void* src, uint64_t bytes) {
  ORDO_GPU_CHECK(ORDO_GPU_API(Memcpy)(dst, src, bytes, ORDO_GPU_API(MemcpyDeviceToHost)));
}

namespace {
// A CTA per table row; its threads take the row's elements strided (each element is a copy or an
// exact conversion alone, so the split is free).
__global__ void fill_kv_table_kernel(kv_table_fill f) { fill_table_row(f, int(blockIdx.x), int(threadIdx.x), int(blockDim.x)); }
}  // namespace

void fill_kv_table(const kv_table_fill& f, gpu::stream_t s) {
  if (f.n <= 0) return;
  fill_kv_table_kernel<<<unsigned(f.n), 128, 0, gpu::native(s)>>>(f);
  ORDO_GPU_CHECK(ORDO_GPU_API(GetLastError)());
}

event create_event() {
  gpu::event_t e{};
  ORDO_GPU_CHECK(ORDO_GPU_API(EventCreate)(&e));
  return static_cast<event>(e);
}
void destroy_event(event e) noexcept {
  if (e) (void)ORDO_GPU_API(EventDestroy)(static_cast<gpu::event_t>(e));
}
void record_event(event e, gpu::stream_t s) { ORDO_GPU_CHECK(ORDO_GPU_API(EventRecord)(static_cast<gpu::event_t>(e), gpu::native(s))); }
float event_ms(event from, event to) {
  ORDO_GPU_CHECK(ORDO_GPU_API(EventSynchronize)(static_cast<gpu::event_t>(to)));
  float ms = 0;
  ORDO_GPU_CHECK(ORDO_GPU_API(EventElapsedTime)(&ms, static_cast<gpu::event_t>(from), static_cast<gpu::event_t>(to)));
  return ms;
}

#else

namespace {
[[noreturn]] void no_gpu(const char* what) {
  throw gpu::error(std::string(what) + ": this build has no GPU (configure a GPU preset: cuda-sm90, hip-*)");
}
}  // namespace

bool present() { return false; }
std::string describe() { no_gpu("device::describe"); }
void* allocate(uint64_t, memory) { no_gpu("device::allocate"); }
void release(void*, memory) noexcept {}
void upload(void*, const void*, uint64_t) { no_gpu("device::upload"); }
void upload_async(void*, const void*, uint64_t, gpu::stream_t) { no_gpu("device::upload_async"); }
gpu::stream_t create_stream() { no_gpu("device::create_stream"); }
void destroy_stream(gpu::stream_t) noexcept {}
void synchronize(gpu::stream_t) { no_gpu("device::synchronize"); }
void download(void*, const void*, uint64_t) { no_gpu("device::download"); }
void fill_kv_table(const kv_table_fill&, gpu::stream_t) { no_gpu("device::fill_kv_table"); }
double copy_bandwidth_gbs() { no_gpu("device::copy_bandwidth_gbs"); }
event create_event() { no_gpu("device::create_event"); }
void destroy_event(event) noexcept {}
void record_event(event, gpu::stream_t) { no_gpu("device::record_event"); }
float event_ms(event, event) { no_gpu("device::event_ms"); }

#endif

}  // namespace ordo::runtime::device
