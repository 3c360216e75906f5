/// The kv_store problem (ds4-model.md §3.4.4–3.4.5, docs/engine.md A13): R rows of the normed,
/// RoPE'd latent KV row (head_dim = 512 floats) at consecutive positions first_position + i become
/// raw-ring rows of F16 bits: dims 0..n_rope_free−1 (448) go through the FP8 E4M3 round trip in
/// blocks of 64 (amax floored at 1e-4, scale 2^ceil(log2(amax/448)), nearest E4M3 ties to even),
/// the RoPE dims stay, and every dim is rounded to F16 (RNE). Row i writes ring slot
/// (first_position + i) mod ring_rows and nothing else.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ordo::ops::kv_store {

/// The FP8 simulation's block length and its E4M3 range.
inline constexpr int fp8_block = 64;
inline constexpr float e4m3_max = 448.0f;
/// The floor of a block's amax: the float nearest the reference's 1e-4 (slightly below it). Both
/// lie in (448·2^-23, 448·2^-22], so both give the scale 2^-22 and the floor changes no bit.
inline constexpr float amax_floor = 1e-4f;

struct problem {
  const float* kv;              // [rows][kv_stride]: head_dim floats
  std::size_t kv_stride;        // >= head_dim
  std::uint16_t* ring;          // [ring_rows][ring_stride]: F16 bits, row of position p at slot p % ring_rows
  std::size_t ring_stride;      // in uint16 elements, >= head_dim
  std::int64_t ring_rows;       // >= rows (a pass never wraps onto its own rows)
  std::int64_t first_position;  // position of row 0, >= 0
  int head_dim;                 // 512
  int n_rope_free;              // 448: the FP8-simulated leading dims, <= head_dim
  int rows;                     // live rows, 1..R; rows >= this are never read or written
};

/// Whether a problem fits spec R: rows within the tier, a ring that holds a pass without wrapping
/// onto its own rows, strides that hold a row.
template <int R>
constexpr bool fits(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.head_dim < 1 || p.n_rope_free < 0 || p.n_rope_free > p.head_dim) return false;
  if (p.kv == nullptr || p.ring == nullptr || p.first_position < 0 || p.ring_rows < p.rows) return false;
  return p.kv_stride >= std::size_t(p.head_dim) && p.ring_stride >= std::size_t(p.head_dim);
}

}  // namespace ordo::ops::kv_store
