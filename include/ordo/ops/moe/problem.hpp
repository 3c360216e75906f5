/// The moe problem: the routed experts and the shared expert of the DS4 FFN sublayer
/// (ds4-model.md §3.5) for `rows` activation rows, in two phases (two grouped launches):
///   gate_up: for each row i and slot k < n_used (expert e = ids[i][k], weight w = weights[i][k])
///              g = gate_e · x_i, u = up_e · x_i                    (qmv's block dots, the spec's Order)
///              mid[i][k] = silu(min(g, clamp)) · clamp(u, ±clamp) · w   (clamp 0: no clamp)
///            and slot n_used is the shared expert with weight 1; then mid[i][k] is quantized to the
///            down projection's activation blocks (mid_act), block by block.
///   down:    partial[i][k] = down_e · mid_act[i][k]   (down_shared for k = n_used)
///            out[i] = ((partial[i][0] + partial[i][1]) + … + partial[i][n_used−1]) + partial[i][n_used]
///            — the slots in output order, the shared expert last: the one weighted-sum order.
/// The router weight scales mid before the down projection (the reference's order), so the sum
/// itself has no multiplies. Rows that pick the same expert share its weight pass; every row's
/// bits equal the row alone (E1), and each partial equals qmv's tier-1 result on the expert's slice.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ordo::ops::moe {

/// Which phase a spec runs. gate_up writes mid and mid_act; down reads mid_act and writes out.
enum class phase { gate_up, down };

/// The phase's name trait (spec/axis_name.hpp finds it by ADL).
constexpr std::string_view ordo_name(phase s) { return s == phase::gate_up ? "gate_up" : "down"; }

/// The most experts a row may use (DS4 uses 6); per-row slot arrays are sized by it.
inline constexpr int max_used = 8;

/// A 3-D routed weight tensor [n_expert][n_out rows][row_bytes] (ggml ne = [k, n_out, n_expert]):
/// row r of expert e starts at data + e·expert_bytes + r·row_bytes.
struct expert_tensor {
  const std::byte* data;
  std::size_t row_bytes;     // >= k / F::block_elems · F::block_bytes
  std::size_t expert_bytes;  // >= n_out · row_bytes
};

/// A 2-D weight matrix [n_out rows][row_bytes] (the shared expert's gate, up, down).
struct matrix {
  const std::byte* data;
  std::size_t row_bytes;
};

struct problem {
  // ---- inputs
  const std::byte* x_routed;        // [rows][x_routed_row_bytes]: x in the routed gate/up format's activation blocks
  std::size_t x_routed_row_bytes;   //   (quantize_rows of the ffn-normed x; q8_32 for MXFP4/Q8_0, q8_k for IQ2_XXS/Q4_K)
  const std::byte* x_shared;        // [rows][x_shared_row_bytes]: x in the shared expert's activation blocks
  std::size_t x_shared_row_bytes;   //   (may be x_routed when both formats take the same activation)
  const std::int32_t* expert_ids;   // [rows][route_stride]: each row's n_used experts (the router's output), each < n_expert
  const float* expert_weights;      // [rows][route_stride]: their weights (already renormalized, ×1.5)
  std::size_t route_stride;         // >= n_used
  // ---- weights
  expert_tensor gate, up;           // [n_expert][n_ff][n_embd] routed gate/up (same format)
  expert_tensor down;               // [n_expert][n_embd][n_ff] routed down
  matrix shared_gate, shared_up;    // [n_ff][n_embd] shared expert
  matrix shared_down;               // [n_embd][n_ff]
  // ---- workspace (written by gate_up, read by down)
  float* mid;                       // [rows][n_used + 1][mid_stride]: SwiGLU·w per slot, slot n_used = shared
  std::size_t mid_stride;           // >= n_ff
  std::byte* mid_act;               // [rows][n_used + 1][mid_act_row_bytes]: mid in the down formats' activation blocks
  std::size_t mid_act_row_bytes;    // >= the larger of the routed and shared down activation row of n_ff
  // ---- optional probes (nullptr: not written): each slot's projections, for tests and dumps
  float* gate_out;                  // [rows][n_used + 1][mid_stride]: g before the clamp (gate_up)
  float* up_out;                    // [rows][n_used + 1][mid_stride]: u before the clamp (gate_up)
  float* partials;                  // [rows][n_used + 1][partial_stride]: each slot's down projection (down)
  std::size_t partial_stride;       // >= n_embd when partials is set
  // ---- output
  float* out;                       // [rows][out_stride]: routed + shared (down)
  std::size_t out_stride;           // >= n_embd
  // ---- shape
  int n_embd;                       // 4096: gate/up reduction length, down output rows
  int n_ff;                         // 2048 (n_ff_exp): gate/up output rows, down reduction length
  int n_expert;                     // 256
  int n_used;                       // 6, 1..max_used
  int rows;                         // live rows, 1..R; rows >= this are never read or written
  float clamp;                      // swiglu_clamp_exp of the layer (10); 0 = no clamp
};

}  // namespace ordo::ops::moe
