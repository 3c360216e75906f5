/// The ceiling every benchmark reports against (issue 12: "measured in the same run"): the device's
/// copy bandwidth, bytes read + written per second of a 1 GiB device-to-device memcpy, over 20
/// copies after a warm-up one. Shared by bench/qmv, bench/moe and `ordo bench` (through
/// runtime::device::copy_bandwidth_gbs). GPU-compiled code only.
#pragma once
#include <cstddef>

#include "ordo/gpu/device_api.hpp"

namespace ordo::gpu {

#if defined(ORDO_GPU)

inline double copy_bandwidth_gbs() {
  const std::size_t bytes = std::size_t(1) << 30;
  device_buffer<std::byte> a(bytes), b(bytes);
  device_memset(a.data(), 1, bytes);
  ORDO_GPU_CHECK(ORDO_GPU_API(Memcpy)(b.data(), a.data(), bytes, ORDO_GPU_API(MemcpyDeviceToDevice)));
  event_timer t;
  const int iters = 20;
  t.record_start();
  for (int i = 0; i < iters; ++i)
    ORDO_GPU_CHECK(ORDO_GPU_API(Memcpy)(b.data(), a.data(), bytes, ORDO_GPU_API(MemcpyDeviceToDevice)));
  const double s = t.elapsed_ms() / 1e3 / iters;
  return 2.0 * double(bytes) / s / 1e9;
}

#endif

}  // namespace ordo::gpu
