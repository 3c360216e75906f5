// bench/qmv: GB/s of the registry's qmv GPU kernels on the DS4 shapes at tiers 1, 2, 4, 8, next to
// the device's measured copy bandwidth in the same run.
//
//   qmv_bench [--iters N] [--markdown FILE]
//
// Weights are replicated into enough distinct copies (>= 1 GiB together) that every launch reads
// from HBM, not from the 50 MB L2; launches cycle through the copies. Bytes moved per launch =
// weight bytes + activation bytes + output bytes. Time is GPU event time over back-to-back launches
// divided by the launch count (so it includes the per-launch gap a decode step would also pay).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/quant/random_block.hpp"
#include "ordo/registry/qmv_registry.hpp"

namespace {

using namespace ordo;

struct shape {
  const char* what;
  const char* format;
  int n_out, k;
};

constexpr shape shapes[] = {
    {"routed gate/up 4096->2048", "mxfp4", 2048, 4096},
    {"routed down 2048->4096", "mxfp4", 4096, 2048},
    {"attn q_b 1024->32768", "q8_0", 32768, 1024},
    {"output head 4096->129280", "q8_0", 129280, 4096},
};

/// Device copy bandwidth (bytes read + written per second) of a 1 GiB device-to-device memcpy.
double copy_bandwidth_gbs() {
  const std::size_t bytes = std::size_t(1) << 30;
  gpu::device_buffer<std::byte> a(bytes), b(bytes);
  gpu::device_memset(a.data(), 1, bytes);
  gpu::event_timer t;
  ORDO_GPU_CHECK(ORDO_GPU_API(Memcpy)(b.data(), a.data(), bytes, ORDO_GPU_API(MemcpyDeviceToDevice)));
  const int iters = 20;
  t.record_start();
  for (int i = 0; i < iters; ++i)
    ORDO_GPU_CHECK(ORDO_GPU_API(Memcpy)(b.data(), a.data(), bytes, ORDO_GPU_API(MemcpyDeviceToDevice)));
  const double s = t.elapsed_ms() / 1e3 / iters;
  return 2.0 * double(bytes) / s / 1e9;
}

template <class F>
std::vector<std::byte> random_weights(int n_out, int k, std::uint64_t seed) {
  const std::size_t blocks = std::size_t(n_out) * std::size_t(k / F::block_elems);
  std::vector<std::byte> w(blocks * F::block_bytes);
  quant::splitmix64 rng{seed};
  auto* b = reinterpret_cast<typename F::block*>(w.data());
  for (std::size_t i = 0; i < blocks; ++i) b[i] = quant::random_block<F>(rng, 0.05f);
  return w;
}

struct result {
  const shape* s;
  int tier;
  double us, gbs;
};

}  // namespace

int main(int argc, char** argv) {
  int iters = 200;
  std::string markdown;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--iters" && i + 1 < argc) iters = std::stoi(argv[++i]);
    else if (a == "--markdown" && i + 1 < argc) markdown = argv[++i];
    else if (a == "--help" || a == "-h") {
      std::printf("usage: qmv_bench [--iters N] [--markdown FILE]\n");
      return 0;
    } else {
      std::fprintf(stderr, "qmv_bench: unknown argument '%s' (see --help)\n", a.c_str());
      return 2;
    }
  }
  if (gpu::device_count() == 0) {
    std::printf("SKIP: no GPU device\n");
    return 0;
  }
  const auto dev = gpu::query_device(0);
  const double copy_gbs = copy_bandwidth_gbs();
  std::printf("device %s, %d SMs, tune preset %s\ncopy bandwidth (1 GiB D2D memcpy, read+write): %.0f GB/s\n\n",
              dev.name.c_str(), dev.multiprocessors, tune::name, copy_gbs);

  std::vector<result> results;
  for (const auto& s : shapes) {
    std::vector<std::byte> host;
    if (std::string(s.format) == "mxfp4") host = random_weights<quant::mxfp4>(s.n_out, s.k, 1);
    else host = random_weights<quant::q8_0>(s.n_out, s.k, 1);
    const std::size_t w_bytes = host.size();
    const int copies = int(std::max<std::size_t>(1, ((std::size_t(1) << 30) + w_bytes - 1) / w_bytes));
    gpu::device_buffer<std::byte> w(w_bytes * std::size_t(copies));
    for (int c = 0; c < copies; ++c) gpu::copy_to_device(w.data() + std::size_t(c) * w_bytes, host.data(), w_bytes);

    for (int tier : {1, 2, 4, 8}) {
      const auto& e = registry::find_qmv(s.format, tier, "ls32");
      const auto& qe = registry::find_quantize(e.activation);
      // activations: tier rows of k floats, quantized on the device by the shipped quantizer
      quant::splitmix64 rng{99};
      std::vector<float> x(std::size_t(tier) * std::size_t(s.k));
      for (auto& v : x) v = quant::uniform_pm1(rng);
      gpu::device_buffer<float> dx(x.size());
      dx.upload(x.data(), x.size());
      const std::size_t act_row_bytes = std::size_t(s.k / qe.block_elems) * std::size_t(qe.block_bytes);
      gpu::device_buffer<std::byte> acts(act_row_bytes * std::size_t(tier));
      qe.launch_gpu({dx.data(), std::size_t(s.k), acts.data(), act_row_bytes, s.k, tier}, nullptr);
      gpu::device_buffer<float> out(std::size_t(s.n_out) * std::size_t(tier));
      ops::qmv::problem p{w.data(), w_bytes / std::size_t(s.n_out), acts.data(), act_row_bytes, out.data(),
                          std::size_t(s.n_out), s.n_out, s.k, tier};
      for (int i = 0; i < 10; ++i) e.launch_gpu(p, nullptr);  // warm up
      gpu::synchronize();
      gpu::event_timer t;
      t.record_start();
      for (int i = 0; i < iters; ++i) {
        p.weights = w.data() + std::size_t(i % copies) * w_bytes;
        e.launch_gpu(p, nullptr);
      }
      const double us = t.elapsed_ms() * 1e3 / iters;
      const double bytes = double(w_bytes) + double(act_row_bytes) * tier + 4.0 * s.n_out * tier;
      results.push_back({&s, tier, us, bytes / (us * 1e-6) / 1e9});
    }
  }

  std::string table = "| shape | format | tier | us/launch | us/row | GB/s | % of copy BW | time vs tier 1 |\n"
                      "|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : results) {
    const auto& base = *std::find_if(results.begin(), results.end(), [&](const result& b) { return b.s == r.s && b.tier == 1; });
    char line[256];
    std::snprintf(line, sizeof line, "| %s | %s | %d | %.2f | %.2f | %.0f | %.0f%% | %.2fx |\n", r.s->what, r.s->format,
                  r.tier, r.us, r.us / r.tier, r.gbs, 100.0 * r.gbs / copy_gbs, r.us / base.us);
    table += line;
  }
  std::printf("%s", table.c_str());
  if (!markdown.empty()) {
    if (FILE* f = std::fopen(markdown.c_str(), "w")) {
      std::fprintf(f, "device %s, copy bandwidth %.0f GB/s, %d iterations per row\n\n%s", dev.name.c_str(), copy_gbs, iters,
                   table.c_str());
      std::fclose(f);
    }
  }
  return 0;
}
