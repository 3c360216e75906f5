// Tensor bytes from (seed, tensor name, row). Each row has its own generator state, so any
// chunking of a tensor (the writer's chunk size, a future parallel writer) gives the same bytes.
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "ordo/quant/formats.hpp"
#include "ordo/quant/random_block.hpp"
#include "ordo/quant/visit_format.hpp"
#include "ordo/synth/random_blocks.hpp"
#include "synth/fill_block.hpp"
#include "synth/generate.hpp"

namespace ordo::synth {

static_assert(std::endian::native == std::endian::little, "GGUF is little-endian; synth writes host floats");

namespace {

// The key hash and mixer of the in-memory random blocks (random_blocks.hpp), so both name a tensor
// the same way.
using detail::mix64;

template <class F>
void fill_uniform_row(quant::splitmix64& rng, float scale, uint64_t elems, std::byte* out) {
  const uint64_t blocks = elems / F::block_elems;
  for (uint64_t b = 0; b < blocks; ++b) {
    const typename F::block blk = quant::random_block<F>(rng, scale);
    std::memcpy(out + b * F::block_bytes, &blk, F::block_bytes);
  }
}

// The recipe's stddev for any format: F::random_block_gain (random_block.hpp) corrects for the
// format's own spread.
void fill_uniform(gguf::ggml_type type, quant::splitmix64& rng, float scale, uint64_t elems, std::byte* out,
                  const std::string& name) {
  quant::visit_format(
      type, [&]<class F>(F) { fill_uniform_row<F>(rng, scale * F::random_block_gain, elems, out); },
      name + ": synth cannot generate it");
}

void put_f32(std::byte* out, uint64_t i, float v) { std::memcpy(out + 4 * i, &v, 4); }

// Values of the f32-only recipes. `i` is the element index within the row.
void fill_special_row(const planned_tensor& t, quant::splitmix64& rng, uint64_t row, uint64_t elems, std::byte* out) {
  using k = init_recipe::kind;
  const init_recipe& r = t.init;
  if (r.k == k::tid2eid) {
    // Partial Fisher-Yates: n_expert_used distinct ids out of n_expert (dims: [used, vocab]).
    const uint32_t n_expert = static_cast<uint32_t>(r.hi);
    std::vector<int32_t> ids(n_expert);
    std::iota(ids.begin(), ids.end(), 0);
    for (uint64_t i = 0; i < elems; ++i) {
      const uint64_t j = i + rng() % (n_expert - i);
      std::swap(ids[i], ids[j]);
      std::memcpy(out + 4 * i, &ids[i], 4);
    }
    (void)row;
    return;
  }
  if (t.spec.type != gguf::ggml_type::f32)
    throw std::runtime_error(t.spec.name + ": recipe needs an f32 tensor");
  // HC mixing vector [pre(hc), post(hc), comb(hc·hc)] with comb[a + hc·b].
  const uint64_t hc = static_cast<uint64_t>(std::lround(std::sqrt(1.0 + double(elems)) - 1.0));
  for (uint64_t i = 0; i < elems; ++i) {
    float v = 0.0f;
    switch (r.k) {
      case k::around_one: v = 1.0f + r.hi * quant::uniform_pm1(rng); break;
      case k::uniform_in: v = r.lo + (r.hi - r.lo) * quant::uniform01(rng); break;
      case k::hc_base: {
        const float jitter = r.hi * quant::uniform_pm1(rng);
        const bool diagonal = i >= 2 * hc && (i - 2 * hc) % hc == (i - 2 * hc) / hc;
        v = (diagonal ? 1.0f : 0.0f) + jitter;
        break;
      }
      default: break;
    }
    put_f32(out, i, v);
  }
}

}  // namespace

uint64_t row_bytes(const gguf::tensor_spec& s) {
  const auto* f = quant::find_format(static_cast<uint32_t>(s.type));
  if (s.type == gguf::ggml_type::i32) return 4 * s.dims.at(0);
  if (!f) throw std::runtime_error(s.name + ": no block geometry for its type");
  const uint64_t rb = quant::row_bytes(*f, s.dims.at(0));
  if (rb == 0)
    throw std::runtime_error(s.name + ": row length " + std::to_string(s.dims[0]) + " is not a multiple of the " +
                             std::string(f->name) + " block (" + std::to_string(f->block_elems) + " values)");
  return rb;
}

uint64_t row_count(const gguf::tensor_spec& s) {
  uint64_t n = 1;
  for (std::size_t i = 1; i < s.dims.size(); ++i) n *= s.dims[i];
  return n;
}

void fill_rows(const planned_tensor& t, uint64_t seed, uint64_t first_row, uint64_t n_rows, std::byte* out) {
  const uint64_t tensor_key = random_fill_key(t.spec.name) ^ mix64(seed + 0x9e3779b97f4a7c15ull);
  const uint64_t rb = row_bytes(t.spec);
  const uint64_t elems = t.spec.dims[0];
  for (uint64_t r = 0; r < n_rows; ++r) {
    const uint64_t row = first_row + r;
    quant::splitmix64 rng{mix64(tensor_key ^ mix64(row + 1))};
    std::byte* dst = out + r * rb;
    if (t.init.k == init_recipe::kind::uniform)
      fill_uniform(t.spec.type, rng, t.init.stddev * std::sqrt(3.0f), elems, dst, t.spec.name);
    else
      fill_special_row(t, rng, row, elems, dst);
  }
}

std::vector<std::byte> tensor_bytes(const planned_tensor& t, uint64_t seed) {
  std::vector<std::byte> out(row_bytes(t.spec) * row_count(t.spec));
  fill_rows(t, seed, 0, row_count(t.spec), out.data());
  return out;
}

}  // namespace ordo::synth
