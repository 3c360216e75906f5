// GPU runtime calls for host code (include/ordo/runtime/device_memory.hpp). A GPU build compiles
// this TU with the kernel compiler (src/runtime/CMakeLists.txt), which defines ORDO_GPU; a CPU
// build compiles it as C++ and every call but present() says there is no GPU.
#include "ordo/runtime/device_memory.hpp"

#include <cstdio>

namespace ordo::runtime::device {

#if defined(ORDO_GPU)

bool present() { return gpu::device_count() > 0; }

std::string describe() {
  const gpu::device_info d = gpu::query_device(0);
  char mem[32];
  std::snprintf(mem, sizeof mem, "%.1f GiB", double(d.global_bytes) / double(1ull << 30));
  return d.name + ", " + mem + ", " + std::to_string(d.multiprocessors) + " multiprocessors";
}

void* allocate(uint64_t bytes, memory m) {
  void* p = nullptr;
  const std::size_t n = bytes ? bytes : 1;
  const gpu::status_t s = m == memory::managed
                              ? ORDO_GPU_API(MallocManaged)(&p, n, ORDO_GPU_API(MemAttachGlobal))
                              : ORDO_GPU_API(Malloc)(&p, n);
  if (s != gpu::status_ok) {
    (void)ORDO_GPU_API(GetLastError)();
    throw gpu::error(std::string(m == memory::managed ? "managed" : "device") + " allocation of " + std::to_string(bytes) +
                     " bytes failed: " + gpu::status_string(s));
  }
  return p;
}

void release(void* p) noexcept {
  if (p) (void)ORDO_GPU_API(Free)(p);
}

void upload(void* dst, const void* src, uint64_t bytes) {
  ORDO_GPU_CHECK(ORDO_GPU_API(Memcpy)(dst, src, bytes, ORDO_GPU_API(MemcpyHostToDevice)));
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

#else

namespace {
[[noreturn]] void no_gpu(const char* what) {
  throw gpu::error(std::string(what) + ": this build has no GPU (configure a GPU preset: cuda-sm90, hip-*)");
}
}  // namespace

bool present() { return false; }
std::string describe() { no_gpu("device::describe"); }
void* allocate(uint64_t, memory) { no_gpu("device::allocate"); }
void release(void*) noexcept {}
void upload(void*, const void*, uint64_t) { no_gpu("device::upload"); }
gpu::stream_t create_stream() { no_gpu("device::create_stream"); }
void destroy_stream(gpu::stream_t) noexcept {}
void synchronize(gpu::stream_t) { no_gpu("device::synchronize"); }

#endif

}  // namespace ordo::runtime::device
