/// Test harness for kv_store specs: random cases (full-mantissa rows of mixed magnitude, rows with
/// tiny blocks that hit the amax floor, rows of exact E4M3 and F16 ties) and a runner that stores
/// chosen pool rows at chosen positions into a sentinel-filled ring with padded strides, NaN rows
/// past the live count, and reports the owned slots and whether anything else was written.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "op_test_inputs.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/ops/kv_store/entries.hpp"
#include "ordo/ops/kv_store/replay.hpp"

namespace ordo::test::kv_store {

using ops::kv_store::cpu_entry;
using ops::kv_store::problem;

/// An F16 NaN payload the op never stores (its live inputs are finite): ring entries that still
/// hold it were never written.
inline constexpr std::uint16_t ring_sentinel = 0x7e5a;

enum class row_kind { mixed, tiny_blocks, ties };

/// One row of `kind`: mixed — full mantissas, exponents over ±12 octaves, each 64-block with its
/// own magnitude; tiny_blocks — every other block below the 1e-4 floor; ties — 4-bit mantissas
/// in the FP8 part (an odd last bit is an exact E4M3 tie once scaled) and 11-bit mantissas in the
/// RoPE part (an odd last bit is an exact F16 tie).
inline std::vector<float> make_row(quant::splitmix64& rng, int head_dim, int n_rope_free, row_kind kind) {
  std::vector<float> v = mixed_floats(rng, std::size_t(head_dim), 12);
  for (int b0 = 0; b0 < head_dim; b0 += 64) {
    const int shift = int(rng() % 17) - 8;
    const bool tiny = kind == row_kind::tiny_blocks && (b0 / 64) % 2 == 0 && b0 < n_rope_free;
    for (int e = b0; e < std::min(b0 + 64, head_dim); ++e) v[std::size_t(e)] = std::ldexp(v[std::size_t(e)], tiny ? -30 : shift);
  }
  if (kind == row_kind::ties)
    for (int e = 0; e < head_dim; ++e) {
      const int bits = e < n_rope_free ? 4 : 11;
      const double mant = 1.0 + double(rng() % (1u << bits)) / double(1u << bits);
      v[std::size_t(e)] = float(std::ldexp(rng() % 2 ? -mant : mant, int(rng() % 9) - 4));
    }
  return v;
}

struct kv_case {
  int head_dim = 512, n_rope_free = 448;
  std::vector<std::vector<float>> pool;
};

inline kv_case make_case(int head_dim, int n_rope_free, int pool, std::uint64_t seed) {
  kv_case c;
  c.head_dim = head_dim;
  c.n_rope_free = n_rope_free;
  quant::splitmix64 rng{seed};
  for (int i = 0; i < pool; ++i) c.pool.push_back(make_row(rng, head_dim, n_rope_free, row_kind(i % 3)));
  return c;
}

struct layout {
  std::size_t kv_pad = 0, ring_pad = 0;  // extra elements per row (kv: NaN; ring: the sentinel)
  std::int64_t ring_rows = 0;            // 0: the tier + 3
  std::int64_t first_position = 0;
  bool poison_unused_rows = true;        // input rows past the live count up to the tier hold NaN
};

struct result {
  std::vector<std::vector<std::uint16_t>> stored;  // per slot: the F16 bits of its ring row
  bool padding_intact = true;                      // nothing outside the owned rows' head_dim was written
};

using runner = std::function<void(const cpu_entry&, const problem&)>;
inline void run_entry(const cpu_entry& e, const problem& p) { e.run(p); }

inline result run(const cpu_entry& e, const kv_case& c, const std::vector<int>& ids, const layout& l = {},
                  const runner& exec = run_entry) {
  const int n = int(ids.size());
  if (n < 1 || n > e.tier) throw std::invalid_argument("kv_store run: row count outside the tier");
  const std::size_t d = std::size_t(c.head_dim), ks = d + l.kv_pad, rs = d + l.ring_pad;
  const std::int64_t ring_rows = l.ring_rows ? l.ring_rows : e.tier + 3;
  std::vector<float> kv(std::size_t(e.tier) * ks, std::numeric_limits<float>::quiet_NaN());
  for (int s = 0; s < n; ++s) std::memcpy(kv.data() + std::size_t(s) * ks, c.pool[std::size_t(ids[std::size_t(s)])].data(), d * 4);
  if (!l.poison_unused_rows)
    for (std::size_t s = std::size_t(n); s < std::size_t(e.tier); ++s) std::fill_n(kv.data() + s * ks, d, 0.0f);
  std::vector<std::uint16_t> ring(std::size_t(ring_rows) * rs, ring_sentinel);
  const std::vector<float> kv_in = kv;
  const problem p{kv.data(), ks, ring.data(), rs, ring_rows, l.first_position, c.head_dim, c.n_rope_free, n};
  exec(e, p);
  result r;
  std::vector<bool> owned(std::size_t(ring_rows), false);
  for (int s = 0; s < n; ++s) {
    const auto slot = std::size_t((l.first_position + s) % ring_rows);
    owned[slot] = true;
    r.stored.emplace_back(ring.begin() + std::ptrdiff_t(slot * rs), ring.begin() + std::ptrdiff_t(slot * rs + d));
  }
  for (std::size_t slot = 0; slot < std::size_t(ring_rows); ++slot)
    for (std::size_t j = owned[slot] ? d : 0; j < rs; ++j) r.padding_intact &= ring[slot * rs + j] == ring_sentinel;
  r.padding_intact &= std::memcmp(kv.data(), kv_in.data(), kv.size() * 4) == 0;
  return r;
}

/// Whether stored F16 bits hold exactly the replay's values (compared as float bit patterns, so
/// the sign of zero counts).
inline bool equals_values(const std::vector<std::uint16_t>& bits, const std::vector<double>& want) {
  if (bits.size() != want.size()) return false;
  for (std::size_t e = 0; e < bits.size(); ++e) {
    const float got = numeric::f16_to_f32(bits[e]), w = float(want[e]);
    if (std::memcmp(&got, &w, 4) != 0) return false;
  }
  return true;
}

inline std::vector<double> replay_row(const kv_case& c, int id) {
  return ops::kv_store::replay::row(c.pool[std::size_t(id)].data(), c.head_dim, c.n_rope_free);
}

}  // namespace ordo::test::kv_store
