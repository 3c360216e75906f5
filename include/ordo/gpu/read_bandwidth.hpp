/// The second ceiling every benchmark reports against (issue 12: "report every kernel against
/// both, measured in the same call"): the device's streaming-read bandwidth, bytes read per second
/// by 16-byte loads over 1 GiB, over 20 reads after a warm-up one (a D2D copy counts read + write
/// bytes and lands lower: copy_bandwidth.hpp); and read_floor_us, the time such a read takes over
/// a given weight footprint. Shared by bench/qmv and bench/moe. GPU-compiled code only.
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

#include "ordo/gpu/device_api.hpp"

namespace ordo::gpu {

#if defined(ORDO_GPU)

/// Reads n 16-byte words with a grid-stride loop and writes one xor per thread (so nothing is dead).
/// A template (of the word) so that a header can define it for every program that includes it.
template <class Word>
ORDO_GLOBAL void stream_read_kernel(const Word* __restrict__ src, std::size_t n, unsigned* sink) {
  unsigned x = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const Word v = src[i];
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  sink[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = x;
}

/// The streaming read's grid: 8 CTAs of 256 threads an SM.
struct stream_read_grid {
  unsigned blocks, threads = 256;
  explicit stream_read_grid(int sms) : blocks(unsigned(sms) * 8) {}
};

/// Streaming-read bandwidth (bytes read per second) of uint4 loads over 1 GiB.
inline double read_bandwidth_gbs(int sms) {
  const std::size_t bytes = std::size_t(1) << 30;
  device_buffer<std::byte> a(bytes);
  device_memset(a.data(), 3, bytes);
  const stream_read_grid g(sms);
  device_buffer<unsigned> sink(std::size_t(g.blocks) * g.threads);
  const auto* src = reinterpret_cast<const uint4*>(a.data());
  stream_read_kernel<<<g.blocks, g.threads>>>(src, bytes / 16, sink.data());
  ORDO_GPU_CHECK_LAUNCH();
  event_timer t;
  const int iters = 20;
  t.record_start();
  for (int i = 0; i < iters; ++i) stream_read_kernel<<<g.blocks, g.threads>>>(src, bytes / 16, sink.data());
  ORDO_GPU_CHECK_LAUNCH();
  const double s = t.elapsed_ms() / 1e3 / iters;
  return double(bytes) / s / 1e9;
}

/// Median-of-3 time per launch of `iters` streaming reads of w_bytes (copies cycled), back to back.
inline double read_floor_us(const std::byte* w, std::size_t w_bytes, int copies, int iters, int sms) {
  const stream_read_grid g(sms);
  device_buffer<unsigned> sink(std::size_t(g.blocks) * g.threads);
  auto launch = [&](int i) {
    const auto* src = reinterpret_cast<const uint4*>(w + std::size_t(i % copies) * w_bytes);
    stream_read_kernel<<<g.blocks, g.threads>>>(src, w_bytes / 16, sink.data());
  };
  for (int i = 0; i < 5; ++i) launch(i);
  ORDO_GPU_CHECK_LAUNCH();
  std::vector<double> batch;
  for (int rep = 0; rep < 3; ++rep) {
    event_timer t;
    t.record_start();
    for (int i = 0; i < iters; ++i) launch(rep * iters + i);
    batch.push_back(t.elapsed_ms() * 1e3 / iters);
  }
  ORDO_GPU_CHECK_LAUNCH();
  std::sort(batch.begin(), batch.end());
  return batch[1];
}

#endif

}  // namespace ordo::gpu
