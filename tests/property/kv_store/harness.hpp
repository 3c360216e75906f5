/// Test harness of kv_store for the generic drivers (tests/property/drivers): rows of full
/// mantissas over ±12 octaves with a magnitude per 64-block, rows whose every other block lies
/// below the 1e-4 amax floor, rows of exact E4M3 and F16 ties; DS4's 512/448 and odd shapes (a
/// partial last FP8 block, all dims FP8, none). Stores chosen pool rows at a drawn first position
/// into a sentinel-filled ring of a drawn size (passes that wrap included), padded strides, NaN
/// (or zero) rows past the live count, and reports whether anything but the owned rows' head_dim
/// entries was written (inputs included). The host replay (ops/kv_store/replay.hpp) and an exact
/// double-precision oracle. A slot's bytes: the F16 bits of its ring row.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../drivers/data.hpp"
#include "../drivers/properties.hpp"
#include "ordo/ops/kv_store/kv_store.hpp"
#include "ordo/ops/kv_store/replay.hpp"

namespace ordo::test {

template <>
struct harness<ops::kv_store::op> {
  using op = ops::kv_store::op;
  using entry = registry::entry<op>;
  static constexpr int order_axis = -1;    // a max and element-wise roundings: no order axis
  static constexpr int untiered_rows = 1;  // unused: every kv_store spec has a tier

  /// An F16 NaN payload the op never stores (its live inputs are finite): ring entries that still
  /// hold it were never written.
  static constexpr std::uint16_t ring_sentinel = 0x7e5a;

  enum class row_kind { mixed, tiny_blocks, ties };

  /// One row of `kind`: mixed — full mantissas, exponents over ±12 octaves, each 64-block with its
  /// own magnitude; tiny_blocks — every other block below the 1e-4 floor; ties — 4-bit mantissas
  /// in the FP8 part (an odd last bit is an exact E4M3 tie once scaled) and 11-bit mantissas in the
  /// RoPE part (an odd last bit is an exact F16 tie).
  static std::vector<float> make_row(quant::splitmix64& rng, int head_dim, int n_rope_free, row_kind kind) {
    std::vector<float> v(static_cast<std::size_t>(head_dim));
    for (auto& x : v) x = mixed_float(rng, 12);
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

  struct data {
    int head_dim = 512, n_rope_free = 448;
    std::vector<std::vector<float>> pool;
    std::int64_t ring_rows = 0;       // >= the pool size, so any pass of pool rows fits
    std::int64_t first_position = 0;  // of slot 0
  };

  /// A ring of pool + 3 rows at position 0 (make_ring sets another).
  static data make(int head_dim, int n_rope_free, int pool, std::uint64_t seed) {
    data d;
    d.head_dim = head_dim;
    d.n_rope_free = n_rope_free;
    quant::splitmix64 rng{seed};
    for (int i = 0; i < pool; ++i) d.pool.push_back(make_row(rng, head_dim, n_rope_free, row_kind(i % 3)));
    d.ring_rows = pool + 3;
    return d;
  }

  /// The DS4 row (512 with 448 FP8 dims) on half the cases, all 512 dims FP8 on an eighth, odd
  /// shapes (a partial last FP8 block, no RoPE dims, no FP8 dims) on the rest; a ring of pool +
  /// 0..20 rows and a first position anywhere in 0..100000 (passes that wrap included).
  static data draw(const entry&, int pool, int c) {
    const int k = c % 8;
    int dim = 512, free = 448;
    if (k == 3) free = 512;
    else if (k % 2 == 1) dim = detail::uniform(1, 699), free = detail::uniform(0, dim);
    auto d = make(dim, free, pool, *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()));
    d.ring_rows = pool + detail::uniform(0, 20);
    d.first_position = detail::uniform(0, 100000);
    return d;
  }

  struct layout {
    std::size_t kv_pad = 0, ring_pad = 0;  // extra elements per row (kv: NaN; ring: the sentinel)
    bool poison_unused_rows = true;        // input rows past the live count up to the tier hold NaN (else zeros)
  };
  static layout tight_layout() { return {}; }
  static layout draw_padded_layout() {
    return {std::size_t(detail::uniform(1, 40)), std::size_t(detail::uniform(0, 40)), detail::uniform(0, 1) == 1};
  }

  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const int n = int(ids.size());
    if (n < 1 || n > e.tier) throw std::invalid_argument("kv_store run: row count outside the tier");
    const std::size_t w = std::size_t(d.head_dim), ks = w + l.kv_pad, rs = w + l.ring_pad;
    std::vector<float> kv(std::size_t(e.tier) * ks, std::numeric_limits<float>::quiet_NaN());
    for (int s = 0; s < n; ++s) std::memcpy(kv.data() + std::size_t(s) * ks, d.pool.at(std::size_t(ids[std::size_t(s)])).data(), w * 4);
    if (!l.poison_unused_rows)
      for (std::size_t s = std::size_t(n); s < std::size_t(e.tier); ++s) std::fill_n(kv.data() + s * ks, w, 0.0f);
    std::vector<std::uint16_t> ring(std::size_t(d.ring_rows) * rs, ring_sentinel);
    const std::vector<float> kv_in = kv;
    be.run(e, {kv.data(), ks, ring.data(), rs, d.ring_rows, d.first_position, d.head_dim, d.n_rope_free, n});
    run_result r;
    std::vector<bool> owned(std::size_t(d.ring_rows), false);
    for (int s = 0; s < n; ++s) {
      const auto slot = std::size_t((d.first_position + s) % d.ring_rows);
      owned[slot] = true;
      const auto* b = reinterpret_cast<const std::byte*>(ring.data() + slot * rs);
      r.rows.emplace_back(b, b + 2 * w);
    }
    for (std::size_t slot = 0; slot < std::size_t(d.ring_rows); ++slot)
      for (std::size_t j = owned[slot] ? w : 0; j < rs; ++j) r.padding_intact &= ring[slot * rs + j] == ring_sentinel;
    r.padding_intact &= std::memcmp(kv.data(), kv_in.data(), kv.size() * 4) == 0;  // the input is never written
    return r;
  }

  /// The F16 bits of a value that is exactly an F16 value (sign of zero kept): sign, biased
  /// exponent and 10 mantissa bits read off in double, without the encoder under test.
  static std::uint16_t f16_bits_of_exact(double v) {
    const std::uint16_t sign = std::signbit(v) ? 0x8000u : 0u;
    const double a = std::fabs(v);
    if (a == 0) return sign;
    if (std::isinf(a)) return std::uint16_t(sign | 0x7c00u);
    int e = 0;
    std::frexp(a, &e);  // a in [2^(e-1), 2^e)
    if (e - 1 < -14) return std::uint16_t(sign | std::uint16_t(a * 0x1p24));  // subnormal: a = m·2^-24
    const auto mant = std::uint16_t((a / std::ldexp(1.0, e - 1) - 1.0) * 1024.0);
    return std::uint16_t(sign | std::uint16_t((e - 1 + 15) << 10) | mant);
  }

  static std::vector<std::byte> bytes_of(const std::vector<double>& values) {
    std::vector<std::uint16_t> bits;
    for (double v : values) bits.push_back(f16_bits_of_exact(v));
    std::vector<std::byte> b(bits.size() * 2);
    std::memcpy(b.data(), bits.data(), b.size());
    return b;
  }

  static std::vector<std::byte> replay(const entry&, const data& d, int pool_row) {
    return bytes_of(ops::kv_store::replay::row(d.pool[std::size_t(pool_row)].data(), d.head_dim, d.n_rope_free));
  }

  /// The oracle: the reference's construction (ds4-model.md §3.4.4–3.4.5, as ordo/ref/rounding.hpp
  /// computes it, restated here without Eigen) in double — per 64-block amax floored at 1e-4,
  /// scale 2^ceil(log2(amax/448)), x/scale clamped to ±448 and rounded to the E4M3 grid of its
  /// binade (step 2^(floor(log2|y|) − 3), 2^-9 below 2^-6) with nearbyint, times scale; then every
  /// dim rounded to the F16 grid (step 2^(e − 11), 2^-24 below 2^-14), ±inf past 65504. Bound
  /// zero: the float path divides and multiplies only by powers of two and rounds only in the two
  /// encoders, which round the same real numbers, so every stored value equals the reference's
  /// (the sign of zero included).
  static double grid_round(double x, int min_exp, int mant_bits) {
    if (x == 0.0) return x;
    int e = 0;
    std::frexp(std::fabs(x), &e);
    const double quantum = std::ldexp(1.0, std::max(e - 1, min_exp) - mant_bits);
    return std::copysign(std::nearbyint(std::fabs(x) / quantum) * quantum, x);
  }
  static std::string oracle(const entry&, const data& d, int pool_row, const std::vector<std::byte>& got) {
    const std::vector<float>& x = d.pool[std::size_t(pool_row)];
    std::vector<double> want(x.begin(), x.end());
    for (int b0 = 0; b0 < d.n_rope_free; b0 += 64) {
      const int b1 = std::min(b0 + 64, d.n_rope_free);
      double amax = 1e-4;
      for (int e = b0; e < b1; ++e) amax = std::max(amax, std::fabs(want[std::size_t(e)]));
      int k = 0;
      const double m = std::frexp(amax / 448.0, &k);
      const double scale = std::ldexp(1.0, m == 0.5 ? k - 1 : k);
      for (int e = b0; e < b1; ++e)
        want[std::size_t(e)] = std::min(std::fabs(grid_round(std::clamp(want[std::size_t(e)] / scale, -448.0, 448.0), -6, 3)), 448.0) *
                               (std::signbit(want[std::size_t(e)]) ? -scale : scale);
    }
    std::vector<std::uint16_t> bits(std::size_t(d.head_dim));
    std::memcpy(bits.data(), got.data(), bits.size() * 2);
    for (int e = 0; e < d.head_dim; ++e) {
      double f = grid_round(want[std::size_t(e)], -14, 10);
      if (std::fabs(f) > 65504.0) f = std::copysign(std::numeric_limits<double>::infinity(), f);
      const std::uint16_t w = f16_bits_of_exact(f);
      if (bits[std::size_t(e)] != w)
        return "dim " + std::to_string(e) + ": stored bits " + std::to_string(bits[std::size_t(e)]) + ", reference bits " + std::to_string(w) +
               " (" + std::to_string(f) + ")";
    }
    return {};
  }

  /// The input rows and the whole ring travel (padding, other slots and poison included) and
  /// come back, the input too, so "nothing else written" covers the device's copies.
  static op::problem to_device(const entry& e, const op::problem& p, device_mover& m) {
    auto q = p;
    q.kv = reinterpret_cast<const float*>(m.inout(const_cast<float*>(p.kv), 4 * std::size_t(e.tier) * p.kv_stride));
    q.ring = reinterpret_cast<std::uint16_t*>(m.inout(p.ring, 2 * std::size_t(p.ring_rows) * p.ring_stride));
    return q;
  }
};

}  // namespace ordo::test
