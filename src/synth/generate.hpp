/// Row-wise tensor generation for `ordo synth`: every row's bytes come from its own generator
/// state (seed, tensor name, row index), so tensors can be produced in any chunks.
#pragma once
#include <cstddef>
#include <cstdint>

#include "synth/synth.hpp"

namespace ordo::synth {

/// Bytes of one row (ne0 values) of `s`; throws if ne0 is not a whole number of blocks.
uint64_t row_bytes(const gguf::tensor_spec& s);
/// Rows of `s`: the product of dims[1..].
uint64_t row_count(const gguf::tensor_spec& s);
/// Writes rows [first_row, first_row + n_rows) of `t` to `out` (n_rows · row_bytes bytes).
void fill_rows(const planned_tensor& t, uint64_t seed, uint64_t first_row, uint64_t n_rows, std::byte* out);

}  // namespace ordo::synth
