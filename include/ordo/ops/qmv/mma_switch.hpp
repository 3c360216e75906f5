/// Whether Q8_0 qmv takes the int8 mma kernel where it applies (ops/qmv/int8_mma_tree.hpp; the
/// default) or the dp4a streaming kernel: the same bits either way. A process-wide switch, in a
/// header of its own so the host-compiled app can reach it: `ordo bench --no-mma` measures, in
/// the same binary, what the mma kernel saves.
#pragma once

namespace ordo::ops::qmv::int8_mma_tree {

inline bool& enabled() {
  static bool on = true;
  return on;
}

}  // namespace ordo::ops::qmv::int8_mma_tree
