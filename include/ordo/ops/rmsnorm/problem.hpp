/// The rmsnorm problem: R rows of n_heads × head_dim floats, each head normalized on its own
/// (n_heads = 1 is the whole-row norm of x, qr and kv; n_heads = 64, head_dim = 512 the per-head
/// Q norm), y = x · rsqrt(mean(x²) + eps) [· w] (ds4-model.md §3.1). Options are scoped enums
/// with name traits, so a spec's name can fold them (DESIGN §3a).
#pragma once
#include <cstddef>
#include <string_view>

namespace ordo::ops::rmsnorm {

/// Whether the normalized value is multiplied by a learned weight (attn_norm, q_a_norm, kv_a_norm,
/// ffn_norm, output_norm) or not (the HC flat state, the per-head Q norm).
enum class weighting { weighted, plain };

/// What the op writes besides the f32 output: nothing, or the q8_32 activation blocks the next
/// qmv reads (one launch instead of norm + quantize).
enum class epilogue { f32, q8_32 };

/// Name traits of the options (spec/axis_name.hpp finds them by ADL).
constexpr std::string_view ordo_name(weighting w) { return w == weighting::weighted ? "weighted" : "plain"; }
constexpr std::string_view ordo_name(epilogue e) { return e == epilogue::f32 ? "f32" : "q8_32"; }

/// One rmsnorm call. Strides are in floats (x, out) or bytes (q8) so tests can pad them.
struct problem {
  const float* x;             // [rows][x_stride]: n_heads * head_dim live floats per row
  std::size_t x_stride;       // >= n_heads * head_dim
  const float* weight;        // [head_dim], the same for every head (weighted only; else unused)
  float* out;                 // [rows][out_stride]
  std::size_t out_stride;     // >= n_heads * head_dim
  std::byte* q8;              // [rows][q8_row_bytes]: n_heads * head_dim / 32 q8_32 blocks (epilogue q8_32)
  std::size_t q8_row_bytes;   // >= n_heads * head_dim / 32 * 36
  int n_heads;                // heads per row, each normalized alone
  int head_dim;               // reduction length of one norm
  int rows;                   // live rows, 1..R; rows >= this are never read or written
  float eps;                  // 1e-6 for DS4
};

/// Whether a problem fits spec (R, E): rows within the tier, shapes the epilogue can block.
template <int R, epilogue E>
constexpr bool fits(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_heads < 1 || p.head_dim < 1) return false;
  const std::size_t width = std::size_t(p.n_heads) * std::size_t(p.head_dim);
  if (p.x_stride < width || p.out_stride < width) return false;
  if constexpr (E == epilogue::q8_32) {
    if (p.head_dim % 32 != 0 || p.q8 == nullptr || p.q8_row_bytes < width / 32 * 36) return false;
  }
  return true;
}

}  // namespace ordo::ops::rmsnorm
