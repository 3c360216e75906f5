/// What a layer step reads besides the plan, the workspace and the layer's state (docs/engine.md
/// §5): the rows it runs (`step_rows`), the block it runs (`block_binding`: plan, weight views and
/// the block's vectors as f32 — norms, sinks, HC scale/base, router bias, APE tables, which files
/// may store as F16 — converted once when the model is bound), and `step_scratch`, the buffers of
/// the per-row phase that the workspace plan does not name yet (RoPE tables of the rows'
/// positions, the attention KV table gathered from the F16 raw ring and the compressed rows, the
/// per-row gather lists, the indexer's visible counts and transformed queries, the rows' token
/// ids). Block vectors live in one arena, host or managed memory by the session's alloc_policy,
/// so the GPU executor's kernels read them where the CPU's do. The scratch has two: what the
/// host writes or reads every layer (angles, lists, counts, token ids) and what only kernels touch
/// (the KV table, the transformed queries). On the GPU the first is pinned host memory the device
/// maps, not managed: a host write to a managed page moves it to the host, and the next kernel to
/// read it faulted it back (tens of µs per layer for a few hundred bytes: the rope, KV-table and
/// attention launches paid it); the second stays managed (device-resident after its first use).
/// The kernels do not read the host-written arrays in pinned memory either (every read a bus
/// round trip: the attention walks read a list slot per entry): each has a device copy in the
/// kernel arena (`dev`) that layer_step fills by `ex.publish` once the host has written it; on
/// host arenas (the CPU executors) the copies are the arrays themselves.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "ordo/model/ds4_hparams.hpp"
#include "ordo/runtime/row_layout.hpp"
#include "ordo/runtime/step_plan.hpp"
#include "ordo/runtime/weights.hpp"

namespace ordo::runtime {

/// Rows `first … first + n − 1` of one sequence, their input token ids (`tokens[i]` at first + i).
struct step_rows {
  int n = 0;
  int64_t first = 0;
  const int32_t* tokens = nullptr;
  /// RoPE position of row i is first + i + position_offset. 0 on the main layers; 1 on the MTP
  /// ring, whose row r holds position r + 1 (D1: position 0 has no MTP row, no h_{-1}).
  int64_t position_offset = 0;
};

/// A block's vector tensors as f32, by role (empty for the roles that are matrices or absent).
struct block_vectors {
  memory_arena arena;
  std::array<std::span<float>, model::ds4_role_count> v;  // into arena
  const float* at(model::ds4_role r) const {
    const auto& x = v[static_cast<std::size_t>(r)];
    return x.empty() ? nullptr : x.data();
  }
};

/// Converts every vector role of `b` (F32, F16 or BF16 in the file) and its APE tables to f32,
/// into memory of `kind`.
block_vectors bind_vectors(const block_weights& b, memory_kind kind = memory_kind::host);

struct block_binding {
  const model::ds4_hparams* hparams = nullptr;
  const block_plan* plan = nullptr;
  const block_weights* weights = nullptr;
  const block_vectors* vectors = nullptr;
};

struct step_scratch {
  memory_arena arena;                // the host-touched arrays: every span below but kv_table and q_fp4
  memory_arena kernel_arena;         // kv_table and q_fp4: written and read by kernels only
  std::span<float> cos_sin;          // [rows][n_rot]: each row's position (A12, C8, O1)
  std::span<float> emit_cos_sin;     // [n_rot]: a window start (H4, C11, C12)
  std::span<float> kv_table;         // [kv_rows][head_dim]: raw rows (f16 → f32, exact) then listed compressed rows
  uint64_t kv_rows = 0;
  std::span<int32_t> table_source;   // [kv_rows]: each table row's state row (kv_table_fill.hpp)
  std::span<int32_t> gather;         // [rows][gather_stride]: each row's attention list
  uint64_t gather_stride = 0;
  std::span<int32_t> n_listed;       // [rows]
  std::span<int32_t> n_visible;      // [rows]: indexer keys each row sees
  std::span<int32_t> n_selected;     // [rows]
  std::span<float> q_fp4;            // [rows][indexer_heads·indexer_dim]
  std::span<int32_t> tokens;         // [rows]: the step's token ids (the hash router reads them)
  /// Where the entries read the host-written arrays above (same shapes).
  struct device_copies {
    float* cos_sin = nullptr;
    float* emit_cos_sin = nullptr;
    int32_t* table_source = nullptr;
    int32_t* gather = nullptr;
    int32_t* n_listed = nullptr;
    int32_t* n_visible = nullptr;
  } dev;
  std::vector<int32_t> selected;     // [rows][indexer_top_k]: the host's copy of the workspace's idx_top rows
  std::vector<int32_t> slot_of;      // [compressed rows]: each one's KV table slot, −1 unlisted (host only)
};

/// Scratch for steps of at most `rows` rows (and at most `slack` rows past a frontier) at
/// context `ctx`, in `p.memory` — managed becomes pinned for the host-touched arena — (each
/// array `p.align`-aligned; the gather lists start at −1).
step_scratch make_step_scratch(const model::ds4_hparams& h, uint32_t ctx, uint32_t rows, const alloc_policy& p = {});

}  // namespace ordo::runtime
