/// Per-sequence state of the reference: per layer the raw sliding window, the compressed rows and
/// the compressors' window states (ds4-model.md §6). Positions advance one token at a time; a
/// prompt is the same path token after token.
#pragma once
#include <deque>
#include <vector>

#include "ordo/ref/compressor.hpp"
#include "ordo/ref/config.hpp"
#include "ordo/ref/weights.hpp"

namespace ordo::ref {

struct layer_state {
  std::deque<vec> raw;          // the last sliding_window raw KV rows, oldest first
  compressor_state compressor;  // ratio != 0
  std::vector<vec> comp;        // compressed attention rows, in window order
  compressor_state indexer_compressor;  // ratio == 4
  std::vector<vec> index_keys;  // indexer compressed rows (one per attention compressed row)
};

struct sequence_state {
  int n_pos = 0;  // tokens consumed so far: the next token's position
  std::vector<layer_state> layers;
};

inline layer_state make_layer_state(const config& c, int ratio) {
  layer_state s;
  if (ratio != 0) s.compressor = compressor_state(ratio, c.head_dim);
  if (ratio == 4) s.indexer_compressor = compressor_state(4, c.indexer_dim);
  return s;
}

inline sequence_state make_sequence_state(const config& c) {
  sequence_state s;
  for (int il = 0; il < static_cast<int>(c.n_layer); ++il) s.layers.push_back(make_layer_state(c, c.ratio(il)));
  return s;
}

}  // namespace ordo::ref
