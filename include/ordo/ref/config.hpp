/// The double-precision reference's view of a DS4-family model: its hyperparameters are
/// model::ds4_hparams, the struct the engine, synth and the converter read too (loaders fill it
/// from GGUF metadata, tests fill it by hand with shapes the engine need not support; defaults are
/// V4 Flash's, ds4-model.md §1), plus the reference's own constants and the switches for its
/// quantization simulations.
#pragma once

#include "ordo/model/ds4_hparams.hpp"

namespace ordo::ref {

using config = model::ds4_hparams;

/// The reference's floor on the sum of the selected experts' scores before normalising (2^-14).
inline constexpr double router_sum_floor = 6.103515625e-5;

/// YaRN parameters of the compressed layers' RoPE, in double.
struct yarn_params {
  double factor = 16.0;  // freq_scale = 1/factor on the interpolated dims
  double original_context = 65536.0;
  double beta_fast = 32.0;
  double beta_slow = 1.0;
};

inline yarn_params yarn_of(const config& c) {
  return {.factor = c.rope_scaling_factor,
          .original_context = static_cast<double>(c.yarn_orig_ctx),
          .beta_fast = c.yarn_beta_fast,
          .beta_slow = c.yarn_beta_slow};
}

/// Quantization effects the reference model has and llama.cpp / HF transformers lack
/// (ds4-model.md §3.4.4, §3.4.5, §3.4.8). On by default; switched off only in the reference,
/// to compare with those oracles.
struct simulations {
  bool kv_fp8 = true;        // E4M3 round-trip of the non-RoPE dims of raw and compressed KV rows
  bool indexer_fp4 = true;   // Hadamard-128 then E2M1 round-trip of indexer queries and keys
  bool raw_f16 = true;       // F16 rounding of raw KV rows before they enter the window

  static simulations all_on() { return {}; }
  static simulations all_off() { return {.kv_fp8 = false, .indexer_fp4 = false, .raw_f16 = false}; }
};

}  // namespace ordo::ref
