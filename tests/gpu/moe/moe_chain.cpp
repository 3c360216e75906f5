// tests/gpu/moe/moe_chain.hpp on the device.
#include "moe_chain.hpp"

#include <cstring>

#include "ordo/gpu/device_api.hpp"

namespace ordo::test {
namespace {

/// dst[i][0, n[i]) = src[i][0, n[i]) for 4 segments, as ONE kernel: the launch right before gate_up,
/// whose wait must cover everything it wrote.
struct segments {
  const std::byte* src[4];
  std::byte* dst[4];
  std::size_t n[4];
};
__global__ void copy_segments(segments s) {
  for (int i = 0; i < 4; ++i)
    for (std::size_t b = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; b < s.n[i]; b += std::size_t(gridDim.x) * blockDim.x)
      s.dst[i][b] = s.src[i][b];
}

gpu::device_buffer<std::byte> on_device(const std::vector<std::byte>& v) {
  gpu::device_buffer<std::byte> d(v.size());
  d.upload(v.data(), v.size());
  return d;
}

}  // namespace

moe_chain_outputs run_moe_chain(const moe_chain& c) {
  const auto gate = on_device(c.gate), up = on_device(c.up), down = on_device(c.down_w);
  const auto sgate = on_device(c.shared_gate), sup = on_device(c.shared_up), sdown = on_device(c.shared_down);
  const auto& s0 = c.steps.at(0);
  auto x_routed = on_device(s0.x_routed), x_shared = on_device(s0.x_shared), ids = on_device(s0.ids), weights = on_device(s0.weights);
  auto mid = on_device(c.mid), mid_act = on_device(c.mid_act);
  std::vector<gpu::device_buffer<std::byte>> src;
  for (const auto& s : c.steps)
    for (const auto* v : {&s.x_routed, &s.x_shared, &s.ids, &s.weights}) src.push_back(on_device(*v));
  const std::size_t steps = c.steps.size();
  gpu::device_buffer<float> chained(c.out_floats * steps), alone(c.out_floats);

  auto step = [&](std::size_t j, float* out, gpu::stream_t stream, bool alone_launches) {
    segments s{};
    gpu::device_buffer<std::byte>* dst[4] = {&x_routed, &x_shared, &ids, &weights};
    for (int i = 0; i < 4; ++i) s.src[i] = src[4 * j + std::size_t(i)].data(), s.dst[i] = dst[i]->data(), s.n[i] = dst[i]->size();
    copy_segments<<<64, 256, 0, gpu::native(stream)>>>(s);
    ORDO_GPU_CHECK_LAUNCH();
    if (alone_launches) gpu::synchronize();
    auto q = c.p;
    q.gate.data = gate.data(), q.up.data = up.data(), q.down.data = down.data();
    q.shared_gate.data = sgate.data(), q.shared_up.data = sup.data(), q.shared_down.data = sdown.data();
    q.x_routed = x_routed.data(), q.x_shared = x_shared.data();
    q.expert_ids = reinterpret_cast<const std::int32_t*>(ids.data());
    q.expert_weights = reinterpret_cast<const float*>(weights.data());
    q.mid = reinterpret_cast<float*>(mid.data()), q.mid_act = mid_act.data(), q.out = out;
    q.gate_out = q.up_out = q.partials = nullptr;
    c.gate_up->launch_gpu(q, stream);
    if (alone_launches) gpu::synchronize();
    c.down->launch_gpu(q, stream);
    if (alone_launches) gpu::synchronize();
  };

  gpu::device_memset(chained.data(), 0xa5, chained.size() * sizeof(float));
  ORDO_GPU_API(Stream_t) stream;
  ORDO_GPU_CHECK(ORDO_GPU_API(StreamCreateWithFlags)(&stream, ORDO_GPU_API(StreamNonBlocking)));
  for (std::size_t j = 0; j < steps; ++j) step(j, chained.data() + j * c.out_floats, stream, false);
  ORDO_GPU_CHECK(ORDO_GPU_API(StreamSynchronize)(stream));
  ORDO_GPU_CHECK(ORDO_GPU_API(StreamDestroy)(stream));
  moe_chain_outputs r;
  r.chained.resize(chained.size());
  chained.download(r.chained.data(), r.chained.size());
  r.alone.resize(chained.size());
  for (std::size_t j = 0; j < steps; ++j) {
    gpu::device_memset(alone.data(), 0xa5, alone.size() * sizeof(float));
    step(j, alone.data(), nullptr, true);
    alone.download(r.alone.data() + j * c.out_floats, c.out_floats);
  }
  return r;
}

}  // namespace ordo::test
