// Runs a CPU session and a GPU session of one model in lockstep and compares them bit for bit
// (E2 at model level): the HC rows every layer step produced (through session::observe), the
// logits after every prefill / decode and the sequence-state bytes. The first difference is
// reported where it appeared — layer, positions, row, element, both values — with every
// workspace stage whose live bytes differ at that step (in dataflow order, so the first one
// listed is the first op whose output differs) and, for the state, the layer and region of the
// first differing byte. A test can perturb the GPU side through `gpu_hook` (the mutation check);
// the second session may run another executor (`deferred`: the mutation check without a device).
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ordo/runtime/session.hpp"

namespace ordo::runtime::test {

inline std::string bits_of(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  char b[48];
  std::snprintf(b, sizeof b, "%.9g (0x%08x)", double(v), u);
  return b;
}

/// The first index where two float arrays differ in bits, or −1.
inline int64_t first_difference(const float* a, const float* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (std::memcmp(a + i, b + i, 4) != 0) return int64_t(i);
  return -1;
}

/// What one layer step left: its HC output rows and the live bytes of every stage's n rows.
struct step_snapshot {
  uint32_t layer = 0;
  int64_t first = 0;
  int n = 0;
  std::vector<float> hc_out;  // [n][hc_dim]
  std::vector<std::vector<std::byte>> stages;  // [stage][n rows × row_bytes]
};

inline step_snapshot snapshot_step(uint32_t layer, int64_t first, int n, const float* hc_out, std::size_t stride,
                                   std::size_t hc_dim, const workspace& ws) {
  step_snapshot s{layer, first, n, {}, {}};
  for (int i = 0; i < n; ++i) s.hc_out.insert(s.hc_out.end(), hc_out + i * stride, hc_out + i * stride + hc_dim);
  s.stages.resize(stage_count);
  for (std::size_t k = 0; k < stage_count; ++k) {
    const row_layout& l = ws.layout().stages[k];
    if (l.row_bytes == 0) continue;
    for (int i = 0; i < n; ++i) {
      const std::byte* r = ws.row(static_cast<stage>(k), static_cast<uint32_t>(i));
      s.stages[k].insert(s.stages[k].end(), r, r + l.row_bytes);
    }
  }
  return s;
}

/// "stage q: row 0 byte 12 (float 3: cpu … gpu …)" for every stage that differs.
inline std::string stage_differences(const step_snapshot& cpu, const step_snapshot& gpu, const workspace& ws) {
  std::string out;
  for (std::size_t k = 0; k < stage_count; ++k) {
    const auto& a = cpu.stages[k];
    const auto& b = gpu.stages[k];
    if (a == b) continue;
    const uint64_t rb = ws.layout().stages[k].row_bytes;
    std::size_t at = 0;
    while (at < a.size() && a[at] == b[at]) ++at;
    const std::size_t row = at / rb, byte = at % rb, f = byte / 4 * 4;
    float x = 0, y = 0;
    std::memcpy(&x, a.data() + row * rb + f, 4);
    std::memcpy(&y, b.data() + row * rb + f, 4);
    out += "    stage " + std::string(stage_name(static_cast<stage>(k))) + ": row " + std::to_string(row) + " byte " +
           std::to_string(byte) + " (as f32 [" + std::to_string(byte / 4) + "]: cpu " + bits_of(x) + ", gpu " + bits_of(y) +
           ")\n";
  }
  return out.empty() ? "    (no stage differs in its live bytes)\n" : out;
}

/// "layer 2 raw ring, byte 40 of row 7" for a byte offset into the state arena.
inline std::string state_region(const sequence_state& s, uint64_t at) {
  const sequence_state_layout& l = s.layout();
  auto in_layer = [&](const layer_state_layout& ll, uint64_t off, const std::string& who) {
    auto rows = [&](const row_layout& r, const char* what) {
      return who + " " + what + " row " + std::to_string(off / r.stride) + " byte " + std::to_string(off % r.stride);
    };
    if (off < ll.raw.bytes()) return rows(ll.raw, "raw ring");
    off -= ll.raw.bytes();
    const std::pair<const compressor_layout*, const char*> parts[] = {{ll.attn ? &*ll.attn : nullptr, "attn compressor"},
                                                                      {ll.indexer ? &*ll.indexer : nullptr, "indexer compressor"}};
    for (const auto& [c, name] : parts) {
      if (!c) continue;
      for (const auto& [r, what] : {std::pair{&c->kv, " kv ring"}, std::pair{&c->score, " score ring"}, std::pair{&c->rows, " emitted"}}) {
        if (off < r->bytes()) return rows(*r, (std::string(name) + what).c_str());
        off -= r->bytes();
      }
    }
    return who + " (past its regions)";
  };
  for (const auto& ll : l.layers) {
    if (at < ll.bytes()) return in_layer(ll, at, "layer " + std::to_string(ll.layer));
    at -= ll.bytes();
  }
  if (l.mtp && at < l.mtp->bytes()) return in_layer(*l.mtp, at, "MTP block");
  return "past the layers";
}

class lockstep {
 public:
  /// Called on the GPU side after each step is compared (mutable HC output rows [n][stride]).
  using gpu_hook = std::function<void(uint32_t layer, int64_t first, int n, float* hc_out, std::size_t stride)>;

  lockstep(const model_weights& w, session_options o, executor_kind second = executor_kind::gpu)
      : cpu_(w, with(o, executor_kind::cpu)), gpu_(w, with(o, second)) {
    const std::size_t hc_dim = w.hparams().hc_dim();
    cpu_.observe([this, hc_dim](uint32_t il, int64_t f, int n, const float*, const float* out, std::size_t stride, const workspace& ws) {
      recorded_.push_back(snapshot_step(il, f, n, out, stride, hc_dim, ws));
    });
    gpu_.observe([this, hc_dim](uint32_t il, int64_t f, int n, const float*, const float* out, std::size_t stride, const workspace& ws) {
      const std::size_t k = compared_++;
      if (first_error_.empty()) {
        if (k >= recorded_.size()) {
          first_error_ = "the GPU session ran more layer steps than the CPU session";
        } else {
          const step_snapshot& want = recorded_[k];
          const step_snapshot got = snapshot_step(il, f, n, out, stride, hc_dim, ws);
          if (want.layer != il || want.first != f || want.n != n) {
            first_error_ = "step " + std::to_string(k) + ": the GPU ran layer " + std::to_string(il) + " at " + std::to_string(f) +
                           " (+" + std::to_string(n) + "), the CPU layer " + std::to_string(want.layer) + " at " +
                           std::to_string(want.first);
          } else if (const int64_t e = first_difference(want.hc_out.data(), got.hc_out.data(), want.hc_out.size()); e >= 0) {
            const int64_t row = e / int64_t(hc_dim);
            first_error_ = "first difference: layer " + std::to_string(il) + " step at positions " + std::to_string(f) + ".." +
                           std::to_string(f + n - 1) + ", HC output row " + std::to_string(row) + " (position " +
                           std::to_string(f + row) + ") element " + std::to_string(e % int64_t(hc_dim)) + ": cpu " +
                           bits_of(want.hc_out[e]) + ", gpu " + bits_of(got.hc_out[e]) + "\n  stages of that step:\n" +
                           stage_differences(want, got, ws);
          }
        }
      }
      if (hook_) hook_(il, f, n, const_cast<float*>(out), stride);
    });
  }

  lockstep(const lockstep&) = delete;  // the observers hold `this`
  lockstep& operator=(const lockstep&) = delete;

  void on_gpu_step(gpu_hook h) { hook_ = std::move(h); }

  /// Prefills both sessions; true when the steps and the logits agree (else error() says where).
  bool prefill(std::span<const int32_t> tokens, uint32_t chunk) {
    recorded_.clear();
    compared_ = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<float> a = cpu_.prefill(tokens, chunk);
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<float> b;
    try {
      b = gpu_.prefill(tokens, chunk);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "[lockstep] the GPU session threw: %s\n", e.what());
      note(std::string("the GPU session threw: ") + e.what());
      return false;
    }
    cpu_seconds_ += std::chrono::duration<double>(t1 - t0).count();
    gpu_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    if (first_error_.empty() && compared_ != recorded_.size())
      first_error_ = "the GPU session ran " + std::to_string(compared_) + " layer steps, the CPU " + std::to_string(recorded_.size());
    if (first_error_.empty() && (a.size() != b.size() || first_difference(a.data(), b.data(), a.size()) >= 0)) {
      const int64_t e = a.size() == b.size() ? first_difference(a.data(), b.data(), a.size()) : 0;
      first_error_ = "the logits after position " + std::to_string(cpu_.position() - 1) + " differ first at token " +
                     std::to_string(e) + ": cpu " + bits_of(a[e]) + ", gpu " + bits_of(b[e]) + " (every layer step agreed: the head)";
    }
    logits_ = a;
    gpu_logits_ = b;
    return first_error_.empty();
  }
  bool decode(int32_t token) { return prefill(std::span<const int32_t>(&token, 1), 1); }

  /// Whether the two sequence states are the same bytes (else error() names the first one).
  bool same_state() {
    const sequence_state& a = cpu_.state();
    const sequence_state& b = gpu_.state();
    if (a.bytes() != b.bytes()) {
      note("the states differ in size: cpu " + std::to_string(a.bytes()) + ", gpu " + std::to_string(b.bytes()));
      return false;
    }
    for (uint64_t i = 0; i < a.bytes(); ++i)
      if (a.data()[i] != b.data()[i]) {
        note("the sequence states differ first at byte " + std::to_string(i) + " of " + std::to_string(a.bytes()) + ": " +
             state_region(a, i));
        return false;
      }
    return true;
  }

  const std::vector<float>& logits() const { return logits_; }
  const std::vector<float>& gpu_logits() const { return gpu_logits_; }
  const std::string& error() const { return first_error_; }
  /// Wall time spent in each session's prefill / decode (the GPU's includes its observer copies).
  double cpu_seconds() const { return cpu_seconds_; }
  double gpu_seconds() const { return gpu_seconds_; }
  session& cpu() { return cpu_; }
  session& gpu() { return gpu_; }

 private:
  static session_options with(session_options o, executor_kind k) {
    o.executor = k;
    return o;
  }
  void note(std::string s) {
    if (first_error_.empty()) first_error_ = std::move(s);
  }
  session cpu_, gpu_;
  std::vector<step_snapshot> recorded_;
  std::size_t compared_ = 0;
  std::string first_error_;
  std::vector<float> logits_, gpu_logits_;
  gpu_hook hook_;
  double cpu_seconds_ = 0, gpu_seconds_ = 0;
};

}  // namespace ordo::runtime::test
