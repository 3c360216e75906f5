// A DS4 model generated in place (src/bench/synthetic_model.hpp).
#include "bench/synthetic_model.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>

#include "ordo/runtime/weight_placement.hpp"
#include "ordo/synth/random_blocks.hpp"

namespace ordo::bench {

std::pair<gguf::ggml_type, gguf::ggml_type> synthetic_expert_types(const std::string& layout) {
  using t = gguf::ggml_type;
  if (layout == "q2") return {t::iq2_xxs, t::q2_k};
  if (layout == "mxfp4") return {t::mxfp4, t::mxfp4};
  if (layout == "q4_k") return {t::q4_k, t::q4_k};
  if (layout == "q8_0") return {t::q8_0, t::q8_0};
  if (layout == "f32") return {t::f32, t::f32};
  throw std::invalid_argument("--layout " + layout + ": expected q2 (IQ2_XXS gate/up, Q2_K down), mxfp4, q4_k, q8_0 or f32");
}

namespace {

uint64_t elements_of(const std::vector<uint64_t>& dims) {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  return n;
}

// What random_blocks makes of a planned tensor: its type and size at its recipe's stddev, keyed
// by its name (so the bytes do not depend on where it is placed or which side makes it).
synth::random_fill fill_request(const synth::planned_tensor& t, uint64_t seed) {
  return {t.spec.type, elements_of(t.spec.dims), t.init.stddev, seed, synth::random_fill_key(t.spec.name)};
}

bool is_routed(model::ds4_role r) {
  return r == model::ds4_role::ffn_gate_exps || r == model::ds4_role::ffn_up_exps || r == model::ds4_role::ffn_down_exps;
}

struct slot {
  const synth::planned_tensor* t;
  std::size_t file;
  uint64_t offset, bytes;
  bool host_made;  // synth's generator on the host (small, or a recipe other than uniform)
  bool host_copy;  // host code reads it (everything host-made, and the embedding)
};

// Runs f(i) for i in [0, n) on a few threads; rethrows the first failure.
template <class F>
void parallel_for(std::size_t n, F&& f) {
  const unsigned workers = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 16));
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex m;
  auto work = [&] {
    for (std::size_t i; (i = next++) < n;) try {
        f(i);
      } catch (...) {
        std::lock_guard lock(m);
        if (!failure) failure = std::current_exception();
      }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

std::unique_ptr<synthetic_model> synthetic_model::build(const synthetic_options& o, const build_progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const auto [gate_up, down] = synthetic_expert_types(o.layout);
  synth::options so;
  so.base = o.base;
  so.seed = o.seed;
  so.mtp = o.mtp;
  so.naming = model::ds4_naming::ds4;
  so.experts = gate_up;
  so.dense = o.dense;
  so.out = "synthetic.gguf";  // names the tables in messages; nothing is written
  if (o.n_layer) so.overrides.push_back({"block_count", std::to_string(o.n_layer)});
  synth::plan plan = synth::make_plan(so);
  for (auto& f : plan.files)
    for (auto& t : f.tensors)
      if (t.role == model::ds4_role::ffn_down_exps) t.spec.type = down;

  std::unique_ptr<synthetic_model> m(new synthetic_model());
  m->gpu_ = o.gpu;
  const model::ds4_hparams& h = plan.hparams;
  std::vector<slot> slots;
  std::vector<runtime::tensor_slot> shapes;  // placed as the GPU upload places a file's tensors
  for (std::size_t fi = 0; fi < plan.files.size(); ++fi)
    for (const auto& t : plan.files[fi].tensors) {
      const uint64_t bytes = gguf::tensor_nbytes(t.spec.type, t.spec.dims);
      const bool host_made = t.init.k != synth::init_recipe::kind::uniform || bytes <= o.host_made_max;
      slots.push_back({&t, fi, 0, bytes, host_made, host_made || t.role == model::ds4_role::token_embd});
      const auto& d = t.spec.dims;
      const uint64_t row[1] = {d[0]};
      shapes.push_back({static_cast<uint32_t>(fi * (uint64_t{h.n_layer} + 2) + uint64_t(t.layer + 1)), t.role, t.spec.type, d[0],
                        gguf::tensor_nbytes(t.spec.type, row), d.size() > 2 ? d[2] : 1, bytes});
      m->bytes_.total += bytes;
      if (fi == 1) m->bytes_.mtp += bytes;
      else if (is_routed(t.role)) m->bytes_.routed_per_token += bytes / h.n_expert * h.n_expert_used;
      else if (t.role != model::ds4_role::token_embd) m->bytes_.dense_per_token += bytes;
    }
  const runtime::slot_placement placed = runtime::place_slots(shapes);
  for (std::size_t i = 0; i < slots.size(); ++i) slots[i].offset = placed.offset[i];
  const uint64_t total = placed.bytes;

  // Where the bytes live: one device allocation (gpu) or one host allocation (cpu).
  std::byte* base = nullptr;
  if (o.gpu) {
    m->device_memory_ = runtime::device::make_buffer(total, runtime::device::memory::device);
    base = static_cast<std::byte*>(m->device_memory_.get());
  } else {
    try {
      m->host_memory_.emplace_back(new std::byte[total]);
    } catch (const std::bad_alloc&) {
      throw std::runtime_error("ordo bench --synthetic: " + std::to_string(total) + " bytes of host memory for the weights are not available");
    }
    base = m->host_memory_.back().get();
  }
  std::vector<std::byte*> host_at(slots.size(), nullptr);
  if (o.gpu)
    for (std::size_t i = 0; i < slots.size(); ++i)
      if (slots[i].host_copy) {
        m->host_memory_.emplace_back(new std::byte[std::max<uint64_t>(slots[i].bytes, 1)]);
        host_at[i] = m->host_memory_.back().get();
      }
  if (!o.gpu)
    for (std::size_t i = 0; i < slots.size(); ++i) host_at[i] = base + slots[i].offset;

  std::atomic<std::size_t> done{0};
  std::atomic<uint64_t> bytes_done{0};
  std::mutex report;
  auto tick = [&](const slot& s) {
    const std::size_t d = ++done;
    const uint64_t b = bytes_done += s.bytes;
    if (progress) {
      std::lock_guard lock(report);
      progress(d, slots.size(), b, m->bytes_.total, s.t->spec.name);
    }
  };
  // Host-made tensors: synth's generator, in parallel (each tensor is independent).
  std::vector<std::size_t> host_made;
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (slots[i].host_made) host_made.push_back(i);
  parallel_for(host_made.size(), [&](std::size_t k) {
    const slot& s = slots[host_made[k]];
    const std::vector<std::byte> bytes = synth::tensor_bytes(*s.t, o.seed);
    std::memcpy(host_at[host_made[k]], bytes.data(), bytes.size());
    tick(s);
  });
  if (o.gpu) {
    for (std::size_t i : host_made) runtime::device::upload(base + slots[i].offset, host_at[i], slots[i].bytes);
    runtime::device::stream stream;
    for (const slot& s : slots)
      if (!s.host_made) {
        synth::fill_random_gpu(base + s.offset, fill_request(*s.t, o.seed), stream.get());
        tick(s);
      }
    runtime::device::synchronize(stream.get());
    for (std::size_t i = 0; i < slots.size(); ++i)
      if (slots[i].host_copy && !slots[i].host_made) runtime::device::download(host_at[i], base + slots[i].offset, slots[i].bytes);
  } else {
    for (const slot& s : slots)  // fill_random_cpu spreads one tensor over threads itself
      if (!s.host_made) {
        synth::fill_random_cpu(base + s.offset, fill_request(*s.t, o.seed));
        tick(s);
      }
  }

  // The tables: the plan's metadata and tensor infos, pointing at the bytes.
  runtime::tensor_table* host_tables[2] = {&m->main_host_, &m->mtp_host_};
  runtime::tensor_table* device_tables[2] = {&m->main_device_, &m->mtp_device_};
  for (std::size_t fi = 0; fi < plan.files.size(); ++fi) {
    const std::string name = "synthetic " + o.layout + (fi ? " (MTP)" : "");
    host_tables[fi]->label = name;
    host_tables[fi]->metadata = plan.files[fi].metadata;
    if (o.gpu) *device_tables[fi] = *host_tables[fi];
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const slot& s = slots[i];
    gguf::tensor_info info;
    info.name = s.t->spec.name;
    info.type = s.t->spec.type;
    info.dims = s.t->spec.dims;
    info.offset = s.offset;
    info.nbytes = s.bytes;
    info.data = base + s.offset;
#if defined(ORDO_MUTANT_SYNTHETIC_OFFSET)
    if (i % 7 == 3) info.data += 256;  // a placement bug: a few tables point past their tensor
#endif
    if (o.gpu) {  // the device's table points at device memory; the host's at its copies where it has them
      device_tables[s.file]->tensors.push_back(info);
      if (host_at[i]) info.data = host_at[i];
    }
    host_tables[s.file]->tensors.push_back(std::move(info));
  }
  const bool side = plan.files.size() > 1;
  m->host_ = runtime::model_weights::from_tables(m->main_host_, side ? &m->mtp_host_ : nullptr);
  if (o.gpu) m->device_ = runtime::model_weights::from_tables(m->main_device_, side ? &m->mtp_device_ : nullptr);
  m->build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return m;
}

}  // namespace ordo::bench
