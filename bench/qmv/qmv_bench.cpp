// bench/qmv: time of the registry's qmv GPU kernels (lane-strided order) on the DS4 shapes at
// tiers 1–8 and 16, next to two bandwidth ceilings measured in the same run.
//
//   qmv_bench [--iters N] [--formats q8_0,mxfp4,...] [--shapes q_b,head,...] [--tiers 1,8,...]
//             [--markdown FILE] [--tsv FILE] [--variants]
//
// --variants also times shapes of the streaming kernel (warps per CTA, ring stages, rows per warp,
// launch overlap, bulk copies or cp.async) other than the preset's, at tiers 1 and 8 on the Q8_0 and MXFP4 shapes, and,
// on the Q8_0 shapes from tier 2, the dp4a streaming kernel against shapes of the mma kernel
// (ops/qmv/int8_mma_tree.hpp: warps = subtrees a CTA / ring slots / issuing warps), to choose
// the preset's policy (they run the same operations in the same order, so only speed differs; the
// GPU test checks the preset's). Each is timed twice: qmv launches back to back ("alone"), and each
// launch after the quantization of its activation rows ("after quantize", a decode step's
// pattern: the predecessor writes what the qmv reads, and does not let dependents start early).
//
// Per shape, "read µs" is a plain streaming read of the same weight bytes (uint4 loads, grid-stride,
// the same copies cycled, launched the same way): what the launch + ramp + tail of a read of this
// size costs on this machine, the practical floor of one launch.
//
// Ceilings: a 1 GiB device-to-device memcpy (bytes read + written per second) and a streaming
// read of 1 GiB with 16-byte loads (bytes read per second), both measured here, now. Weights are
// replicated into enough distinct copies (>= 1 GiB together) that every launch reads them from
// HBM, not from the 50 MB L2; launches cycle through the copies. Bytes per launch = weight bytes +
// activation bytes + output bytes; the floor is bytes / streaming-read bandwidth. Time is GPU event
// time over N back-to-back launches / N, the median of 3 such batches (it includes the per-launch
// gap), and the same N launches captured in one graph and replayed (the gap a decode step that
// replays a graph pays).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ordo/gpu/copy_bandwidth.hpp"
#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/read_bandwidth.hpp"
#include "ordo/ops/qmv/int8_dot_streaming.hpp"
#include "ordo/ops/qmv/int8_mma_tree.hpp"
#include "ordo/quant/formats.hpp"
#include "ordo/quant/random_block.hpp"
#include "ordo/registry/all_ops.hpp"

namespace {

using namespace ordo;

struct shape {
  const char* what;
  const char* format;
  int n_out, k;
};

constexpr shape shapes[] = {
    {"output head 4096->129280", "q8_0", 129280, 4096},
    {"attn q_b 1024->32768", "q8_0", 32768, 1024},
    {"routed gate/up 4096->2048", "mxfp4", 2048, 4096},
    {"routed down 2048->4096", "mxfp4", 4096, 2048},
    {"routed gate/up 4096->2048", "iq2_xxs", 2048, 4096},
    {"routed down 2048->4096", "iq2_xxs", 4096, 2048},
    {"routed gate/up 4096->2048", "q2_k", 2048, 4096},
    {"routed down 2048->4096", "q2_k", 4096, 2048},
};
constexpr int tiers[] = {1, 2, 3, 4, 5, 6, 7, 8, 16};

using gpu::copy_bandwidth_gbs;
using gpu::read_bandwidth_gbs;
using gpu::read_floor_us;

template <class F>
std::vector<std::byte> random_weights(int n_out, int k, std::uint64_t seed) {
  const std::size_t blocks = std::size_t(n_out) * std::size_t(k / F::block_elems);
  std::vector<std::byte> w(blocks * F::block_bytes);
  quant::splitmix64 rng{seed};
  auto* b = reinterpret_cast<typename F::block*>(w.data());
  for (std::size_t i = 0; i < blocks; ++i) b[i] = quant::random_block<F>(rng, 0.05f);
  return w;
}

std::vector<std::byte> random_weights(std::string_view format, int n_out, int k) {
  std::vector<std::byte> w;
  [&]<class... Fs>(meta::type_list<Fs...>) {
    (void)((Fs::name == format && (w = random_weights<Fs>(n_out, k, 1), true)) || ...);
  }(quant::all_formats{});
  if (w.empty()) throw std::invalid_argument("qmv_bench: unknown format " + std::string(format));
  return w;
}

struct result {
  const shape* s;
  int tier;
  double us, graph_us, bytes, read_us;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

#if defined(ORDO_GPU_CUDA)  // the streaming kernel is CUDA-only
using ops::qmv::launch_overlap;
template <int W, int S, int RW, launch_overlap O, bool B = true>
struct variant_policy {
  static constexpr int streaming_warps = W, streaming_stages = S, streaming_rows_per_warp = RW;
  static constexpr launch_overlap streaming_overlap = O;
  static constexpr bool streaming_bulk = B;
  static std::string name() {
    return std::to_string(W) + "/" + std::to_string(S) + "/" + std::to_string(RW) + " " + std::string(ordo_name(O)) +
           (B ? "" : " cp.async");
  }
};
constexpr auto plain = launch_overlap::none, pdl = launch_overlap::dependent_launch,
               pdl_w = launch_overlap::weights_before_wait;
using variants = meta::type_list<variant_policy<8, 3, 4, pdl_w>, variant_policy<8, 3, 4, pdl_w, false>, variant_policy<8, 4, 4, pdl_w>,
                                 variant_policy<8, 3, 2, pdl_w>, variant_policy<8, 3, 2, pdl_w, false>, variant_policy<16, 3, 2, pdl_w>>;

/// The mma kernel's shapes: S subtrees (warps) a CTA, NS ring slots, I issuing warps; at every tier.
template <int S, int NS, int I>
struct mma_variant_policy : tune::preset::qmv::policy {
  static constexpr int mma_subtrees = S, mma_stages = NS, mma_issuers = I, mma_min_rows = 1;
  static std::string name() { return "mma " + std::to_string(S) + "/" + std::to_string(NS) + "/" + std::to_string(I); }
};
using mma_variants = meta::type_list<mma_variant_policy<8, 4, 8>, mma_variant_policy<8, 3, 8>, mma_variant_policy<8, 6, 8>,
                                     mma_variant_policy<4, 4, 4>, mma_variant_policy<16, 4, 16>, mma_variant_policy<16, 3, 16>>;

/// Median-of-3 time of `iters` launches by `launch` (false: it does not apply: 0), weights cycled;
/// with `quantize`, each launch follows the quantization of its activations (q), as in decode.
template <class Launch>
double time_launches(ops::qmv::problem p, const std::byte* w, std::size_t w_bytes, int copies, int iters,
                     const ops::quantize_rows::problem* q, void (*quantize)(const ops::quantize_rows::problem&, gpu::stream_t),
                     Launch launch) {
  if (!launch(p)) return 0.0;
  for (int i = 0; i < 5; ++i) launch(p);
  std::vector<double> batch;
  for (int rep = 0; rep < 3; ++rep) {
    gpu::event_timer t;
    t.record_start();
    for (int i = 0; i < iters; ++i) {
      p.weights = w + std::size_t((rep * iters + i) % copies) * w_bytes;
      if (q) quantize(*q, nullptr);
      launch(p);
    }
    batch.push_back(t.elapsed_ms() * 1e3 / iters);
  }
  std::sort(batch.begin(), batch.end());
  return batch[1];
}

/// A table cell of a time (0: the shape does not apply).
std::string time_cell(double us) {
  char cell[32];
  std::snprintf(cell, sizeof cell, us > 0 ? " %.2f |" : " n/a |", us);
  return cell;
}

/// A table header: the leading columns `h` (separator `sep`), then a column per policy of the list.
template <class... Ps>
std::string policy_header(std::string h, std::string sep, meta::type_list<Ps...>) {
  ((h += " " + Ps::name() + " |", sep += "---|"), ...);
  return h + "\n" + sep + "\n";
}

/// time_launches of the streaming kernel with policy P.
template <class D, int R, class P>
double time_variant(const ops::qmv::problem& p, const std::byte* w, std::size_t w_bytes, int copies, int iters,
                    const ops::quantize_rows::problem* q, void (*quantize)(const ops::quantize_rows::problem&, gpu::stream_t)) {
  return time_launches(p, w, w_bytes, copies, iters, q, quantize, [](const ops::qmv::problem& pp) {
    return ops::qmv::int8_dot_streaming::try_launch<D, R, P>(pp, nullptr);
  });
}

/// Rows of the dp4a streaming kernel (the preset's policy, its mma kernel off) against the mma
/// kernel's shapes, Q8_0 at tier R.
template <int R>
std::string mma_rows(const char* what, const ops::qmv::problem& p, const std::byte* w, std::size_t w_bytes, int copies,
                     int iters) {
  using base = tune::preset::qmv::policy;
  std::string row = std::string("| ") + what + " | " + std::to_string(R) + " |";
  row += time_cell(time_variant<ops::qmv::q8_0_decoder, R, base>(p, w, w_bytes, copies, iters, nullptr, nullptr));
  [&]<class... Ps>(meta::type_list<Ps...>) {
    ((row += time_cell(time_launches(p, w, w_bytes, copies, iters, nullptr, nullptr, [](const ops::qmv::problem& pp) {
        return ops::qmv::int8_mma_tree::try_launch<R, Ps>(pp, nullptr);
      }))),
     ...);
  }(mma_variants{});
  return row + "\n";
}

template <class D, int R>
std::string variant_rows(const char* what, const ops::qmv::problem& p, const std::byte* w, std::size_t w_bytes, int copies,
                         int iters, const ops::quantize_rows::problem& q,
                         void (*quantize)(const ops::quantize_rows::problem&, gpu::stream_t)) {
  std::string rows;
  for (const bool after_quantize : {false, true}) {
    std::string row = std::string("| ") + what + " | " + std::string(D::format::name) + " | " + std::to_string(R) + " | " +
                      (after_quantize ? "after quantize" : "alone") + " |";
    [&]<class... Ps>(meta::type_list<Ps...>) {
      ((row += time_cell(time_variant<D, R, Ps>(p, w, w_bytes, copies, iters, after_quantize ? &q : nullptr, quantize))), ...);
    }(variants{});
    rows += row + "\n";
  }
  return rows;
}

#endif

}  // namespace

int main(int argc, char** argv) {
  int iters = 100;
  std::string markdown, tsv;
  std::vector<std::string> formats, shape_names;
  std::vector<int> tier_list(std::begin(tiers), std::end(tiers));
  bool sweep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--iters" && i + 1 < argc) iters = std::stoi(argv[++i]);
    else if (a == "--markdown" && i + 1 < argc) markdown = argv[++i];
    else if (a == "--tsv" && i + 1 < argc) tsv = argv[++i];
    else if (a == "--formats" && i + 1 < argc) formats = split(argv[++i]);
    else if (a == "--shapes" && i + 1 < argc) shape_names = split(argv[++i]);
    else if (a == "--tiers" && i + 1 < argc) {
      tier_list.clear();
      for (const auto& t : split(argv[++i])) tier_list.push_back(std::stoi(t));
    } else if (a == "--variants") sweep = true;
    else if (a == "--help" || a == "-h") {
      std::printf("usage: qmv_bench [--iters N] [--formats q8_0,mxfp4,...] [--shapes q_b,head,...] [--tiers 1,8,...]\n"
                  "                 [--markdown FILE] [--tsv FILE] [--variants]\n");
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
  const double read_gbs = read_bandwidth_gbs(dev.multiprocessors);
  std::printf("device %s, %d SMs, tune preset %s\ncopy bandwidth (1 GiB D2D memcpy, read+write): %.0f GB/s\n"
              "streaming read (1 GiB, 16-byte loads): %.0f GB/s\n\n",
              dev.name.c_str(), dev.multiprocessors, tune::name, copy_gbs, read_gbs);

  std::vector<result> results;
  std::string variant_table, mma_table;
  for (const auto& s : shapes) {
    if (!formats.empty() && std::find(formats.begin(), formats.end(), s.format) == formats.end()) continue;
    if (!shape_names.empty() &&
        std::none_of(shape_names.begin(), shape_names.end(), [&](const std::string& n) { return std::strstr(s.what, n.c_str()); }))
      continue;
    const std::vector<std::byte> host = random_weights(s.format, s.n_out, s.k);
    const std::size_t w_bytes = host.size();
    const int copies = int(std::max<std::size_t>(1, ((std::size_t(1) << 30) + w_bytes - 1) / w_bytes));
    gpu::device_buffer<std::byte> w(w_bytes * std::size_t(copies));
    for (int c = 0; c < copies; ++c) gpu::copy_to_device(w.data() + std::size_t(c) * w_bytes, host.data(), w_bytes);
    const double read_us = read_floor_us(w.data(), w_bytes, copies, iters, dev.multiprocessors);

    for (int tier : tier_list) {
      const auto& e = registry::find_axes<ops::qmv::op>(s.format, "r" + std::to_string(tier), "ls32");
      const auto& quantize = registry::find_axes<ops::quantize_rows::op>(e.info.activation);
      const auto& qe = quantize.info;
      // activations: tier rows of k floats, quantized on the device by the shipped quantizer
      quant::splitmix64 rng{99};
      std::vector<float> x(std::size_t(tier) * std::size_t(s.k));
      for (auto& v : x) v = quant::uniform_pm1(rng);
      gpu::device_buffer<float> dx(x.size());
      dx.upload(x.data(), x.size());
      const std::size_t act_row_bytes = std::size_t(s.k / qe.block_elems) * std::size_t(qe.block_bytes);
      gpu::device_buffer<std::byte> acts(act_row_bytes * std::size_t(tier));
      quantize.launch_gpu({dx.data(), std::size_t(s.k), acts.data(), act_row_bytes, s.k, tier}, nullptr);
      gpu::device_buffer<float> out(std::size_t(s.n_out) * std::size_t(tier));
      ops::qmv::problem p{w.data(), w_bytes / std::size_t(s.n_out), acts.data(), act_row_bytes, out.data(),
                          std::size_t(s.n_out), s.n_out, s.k, tier};
      for (int i = 0; i < 10; ++i) e.launch_gpu(p, nullptr);  // warm up
      gpu::synchronize();
      std::vector<double> batch;
      for (int rep = 0; rep < 3; ++rep) {
        gpu::event_timer t;
        t.record_start();
        for (int i = 0; i < iters; ++i) {
          p.weights = w.data() + std::size_t((rep * iters + i) % copies) * w_bytes;
          e.launch_gpu(p, nullptr);
        }
        batch.push_back(t.elapsed_ms() * 1e3 / iters);
      }
      std::sort(batch.begin(), batch.end());
      // The same launches captured once in a graph and replayed (what a decode step would do).
      ORDO_GPU_API(Stream_t) stream;
      ORDO_GPU_CHECK(ORDO_GPU_API(StreamCreateWithFlags)(&stream, ORDO_GPU_API(StreamNonBlocking)));
      ORDO_GPU_API(Graph_t) graph;
      ORDO_GPU_API(GraphExec_t) exec;
      ORDO_GPU_CHECK(ORDO_GPU_API(StreamBeginCapture)(stream, ORDO_GPU_API(StreamCaptureModeThreadLocal)));
      for (int i = 0; i < iters; ++i) {
        p.weights = w.data() + std::size_t(i % copies) * w_bytes;
        e.launch_gpu(p, stream);
      }
      ORDO_GPU_CHECK(ORDO_GPU_API(StreamEndCapture)(stream, &graph));
      ORDO_GPU_CHECK(ORDO_GPU_API(GraphInstantiateWithFlags)(&exec, graph, 0));
      ORDO_GPU_CHECK(ORDO_GPU_API(GraphLaunch)(exec, stream));  // warm up
      std::vector<double> graph_batch;
      for (int rep = 0; rep < 3; ++rep) {
        gpu::event_timer t;
        t.record_start(stream);
        ORDO_GPU_CHECK(ORDO_GPU_API(GraphLaunch)(exec, stream));
        graph_batch.push_back(t.elapsed_ms(stream) * 1e3 / iters);
      }
      std::sort(graph_batch.begin(), graph_batch.end());
      ORDO_GPU_CHECK(ORDO_GPU_API(GraphExecDestroy)(exec));
      ORDO_GPU_CHECK(ORDO_GPU_API(GraphDestroy)(graph));
      ORDO_GPU_CHECK(ORDO_GPU_API(StreamDestroy)(stream));
      const double bytes = double(w_bytes) + double(act_row_bytes) * tier + 4.0 * s.n_out * tier;
      results.push_back({&s, tier, batch[1], graph_batch[1], bytes, read_us});
#if defined(ORDO_GPU_CUDA)
      if (sweep && (tier == 1 || tier == 8)) {
        using namespace ops::qmv;
        const std::string f = s.format;
        const ops::quantize_rows::problem q{dx.data(), std::size_t(s.k), acts.data(), act_row_bytes, s.k, tier};
        const auto qz = quantize.launch_gpu;
        if (f == "q8_0" && tier == 1) variant_table += variant_rows<q8_0_decoder, 1>(s.what, p, w.data(), w_bytes, copies, iters, q, qz);
        if (f == "q8_0" && tier == 8) variant_table += variant_rows<q8_0_decoder, 8>(s.what, p, w.data(), w_bytes, copies, iters, q, qz);
        if (f == "mxfp4" && tier == 1) variant_table += variant_rows<mxfp4_decoder, 1>(s.what, p, w.data(), w_bytes, copies, iters, q, qz);
        if (f == "mxfp4" && tier == 8) variant_table += variant_rows<mxfp4_decoder, 8>(s.what, p, w.data(), w_bytes, copies, iters, q, qz);
      }
      if (sweep && s.format == std::string("q8_0") && tier >= 2) {
        [&]<int... Rs>(std::integer_sequence<int, Rs...>) {
          ((tier == Rs ? (void)(mma_table += mma_rows<Rs>(s.what, p, w.data(), w_bytes, copies, iters)) : void()), ...);
        }(std::integer_sequence<int, 2, 3, 4, 5, 6, 7, 8, 16>{});
      }
#endif
    }
  }

  std::string table =
      "| shape | format | tier | µs/launch | µs/launch in a graph | floor µs | read µs (same bytes) | GB/s | % of copy BW | "
      "% of read BW | read µs / µs | time vs tier 1 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::string rows_tsv = "format\tn_out\tk\ttier\tus\tgraph_us\tbytes\tcopy_gbs\tread_gbs\tread_us\n";
  for (const auto& r : results) {
    const auto base_it = std::find_if(results.begin(), results.end(), [&](const result& b) { return b.s == r.s && b.tier == 1; });
    const double base_us = base_it != results.end() ? base_it->us : 0.0;
    const double gbs = r.bytes / (r.us * 1e-6) / 1e9;
    char line[320];
    std::snprintf(line, sizeof line, "| %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f%% | %.0f%% | %.0f%% | %.2fx |\n",
                  r.s->what, r.s->format, r.tier, r.us, r.graph_us, r.bytes / (read_gbs * 1e3), r.read_us, gbs,
                  100.0 * gbs / copy_gbs, 100.0 * gbs / read_gbs, 100.0 * r.read_us / r.us, base_us > 0 ? r.us / base_us : 0.0);
    table += line;
    std::snprintf(line, sizeof line, "%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.0f\t%.0f\t%.0f\t%.3f\n", r.s->format, r.s->n_out, r.s->k,
                  r.tier, r.us, r.graph_us, r.bytes, copy_gbs, read_gbs, r.read_us);
    rows_tsv += line;
  }
  std::printf("%s", table.c_str());
#if defined(ORDO_GPU_CUDA)
  if (sweep)
    variant_table = "\nstreaming-kernel variants, µs/launch (warps per CTA / ring stages / rows per warp, launch overlap):\n" +
                    policy_header("| shape | format | tier | launches |", "|---|---|---|---|", variants{}) + variant_table;
  if (!mma_table.empty())
    variant_table += "\nQ8_0 from 2 rows: the dp4a streaming kernel against the mma kernel's shapes (subtrees / ring slots / issuing warps), "
                     "µs/launch alone:\n" + policy_header("| shape | tier | dp4a streaming |", "|---|---|---|", mma_variants{}) + mma_table;
#endif
  std::printf("%s", variant_table.c_str());
  if (!markdown.empty()) {
    if (FILE* f = std::fopen(markdown.c_str(), "w")) {
      std::fprintf(f, "device %s, copy bandwidth %.0f GB/s, streaming read %.0f GB/s, %d launches per batch, median of 3\n\n%s",
                   dev.name.c_str(), copy_gbs, read_gbs, iters, (table + variant_table).c_str());
      std::fclose(f);
    }
  }
  if (!tsv.empty()) {
    if (FILE* f = std::fopen(tsv.c_str(), "w")) {
      std::fputs(rows_tsv.c_str(), f);
      std::fclose(f);
    }
  }
  return 0;
}
