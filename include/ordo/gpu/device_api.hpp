/// The few GPU runtime calls ordo makes, with one spelling for HIP and CUDA. Debian's HIP 5.2
/// `nvidia_detail` does not build against CUDA 13, so this is our own small mapping. Every call
/// is checked: a failure throws gpu::error naming the call, the file and line. On a host-only
/// build (no HIP, no CUDA) the functions exist and report zero devices, so callers need no #ifs.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

#include "ordo/gpu/portability.hpp"

namespace ordo::gpu {

struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Streams cross the registry as an opaque pointer so the entry-point signatures are the same in
/// TUs built by the host compiler and by the GPU compiler (cudaStream_t/hipStream_t are pointers).
using stream_t = void*;

#if defined(ORDO_GPU_HIP)
using native_stream_t = hipStream_t;
using event_t = hipEvent_t;
using device_prop_t = hipDeviceProp_t;
#define ORDO_GPU_API(name) hip##name
using status_t = hipError_t;
inline const char* status_string(status_t s) { return hipGetErrorString(s); }
inline constexpr status_t status_ok = hipSuccess;
#elif defined(ORDO_GPU_CUDA)
using native_stream_t = cudaStream_t;
using event_t = cudaEvent_t;
using device_prop_t = cudaDeviceProp;
#define ORDO_GPU_API(name) cuda##name
using status_t = cudaError_t;
inline const char* status_string(status_t s) { return cudaGetErrorString(s); }
inline constexpr status_t status_ok = cudaSuccess;
#endif

#if defined(ORDO_GPU)
inline native_stream_t native(stream_t s) { return static_cast<native_stream_t>(s); }

inline void check(status_t s, const char* what, const char* file, int line) {
  if (s != status_ok)
    throw error(std::string(file) + ":" + std::to_string(line) + ": " + what + " failed: " + status_string(s));
}
/// Wraps a runtime call: ORDO_GPU_CHECK(cudaMalloc(...)) or ORDO_GPU_CHECK(ORDO_GPU_API(Malloc)(...)).
#define ORDO_GPU_CHECK(call) ::ordo::gpu::check((call), #call, __FILE__, __LINE__)
/// Checks the launch just made (bad configuration, missing kernel image for this arch).
#define ORDO_GPU_CHECK_LAUNCH() ORDO_GPU_CHECK(ORDO_GPU_API(GetLastError)())

inline int device_count() {
  int n = 0;
  // No driver or no device both mean "no GPU here": report 0 rather than throwing, so GPU tests can skip.
  if (ORDO_GPU_API(GetDeviceCount)(&n) != status_ok) {
    (void)ORDO_GPU_API(GetLastError)();
    return 0;
  }
  return n;
}

struct device_info {
  std::string name;
  int multiprocessors;
  int warp_size;   // 32 on NVIDIA and gfx10+/11/12 (wave32), 64 on gfx9: kernels never depend on it
  size_t global_bytes;
};

inline device_info query_device(int device = 0) {
  device_prop_t p{};
  ORDO_GPU_CHECK(ORDO_GPU_API(GetDeviceProperties)(&p, device));
  return {p.name, p.multiProcessorCount, p.warpSize, p.totalGlobalMem};
}

template <class T>
T* device_alloc(size_t count) {
  void* p = nullptr;
  ORDO_GPU_CHECK(ORDO_GPU_API(Malloc)(&p, count * sizeof(T)));
  return static_cast<T*>(p);
}
inline void device_free(void* p) { ORDO_GPU_CHECK(ORDO_GPU_API(Free)(p)); }

template <class T>
void copy_to_device(T* dst, const T* src, size_t count) {
  ORDO_GPU_CHECK(ORDO_GPU_API(Memcpy)(dst, src, count * sizeof(T), ORDO_GPU_API(MemcpyHostToDevice)));
}
template <class T>
void copy_to_host(T* dst, const T* src, size_t count) {
  ORDO_GPU_CHECK(ORDO_GPU_API(Memcpy)(dst, src, count * sizeof(T), ORDO_GPU_API(MemcpyDeviceToHost)));
}
inline void device_memset(void* p, int byte, size_t bytes) { ORDO_GPU_CHECK(ORDO_GPU_API(Memset)(p, byte, bytes)); }
inline void synchronize() { ORDO_GPU_CHECK(ORDO_GPU_API(DeviceSynchronize)()); }

/// Times GPU work with events (milliseconds between record_start and elapsed_ms).
class event_timer {
 public:
  event_timer() {
    ORDO_GPU_CHECK(ORDO_GPU_API(EventCreate)(&start_));
    ORDO_GPU_CHECK(ORDO_GPU_API(EventCreate)(&stop_));
  }
  ~event_timer() {
    (void)ORDO_GPU_API(EventDestroy)(start_);
    (void)ORDO_GPU_API(EventDestroy)(stop_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;
  void record_start(stream_t s = nullptr) { ORDO_GPU_CHECK(ORDO_GPU_API(EventRecord)(start_, native(s))); }
  float elapsed_ms(stream_t s = nullptr) {
    ORDO_GPU_CHECK(ORDO_GPU_API(EventRecord)(stop_, native(s)));
    ORDO_GPU_CHECK(ORDO_GPU_API(EventSynchronize)(stop_));
    float ms = 0;
    ORDO_GPU_CHECK(ORDO_GPU_API(EventElapsedTime)(&ms, start_, stop_));
    return ms;
  }

 private:
  event_t start_{}, stop_{};
};
#else
inline int device_count() { return 0; }
#endif

/// RAII device array. On host-only builds it cannot be constructed (there is no device).
#if defined(ORDO_GPU)
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(size_t count) : ptr_(count ? device_alloc<T>(count) : nullptr), count_(count) {}
  ~device_buffer() {
    if (ptr_) (void)ORDO_GPU_API(Free)(ptr_);
  }
  device_buffer(device_buffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; o.count_ = 0; }
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  T* data() const { return ptr_; }
  size_t size() const { return count_; }
  void upload(const T* src, size_t count) { copy_to_device(ptr_, src, count); }
  void download(T* dst, size_t count) const { copy_to_host(dst, ptr_, count); }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};
#endif

}  // namespace ordo::gpu
