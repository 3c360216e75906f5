/// attention, the op descriptor the registry and the generic drivers read. Axes, in spec order:
/// tier R (query rows per launch), Order (the q·k lane split and the history's chunking),
/// visibility, schedule ("attention.r4.kv64.general.split").
///
/// The Order fixes every float operation of a head: q·k as ls32 (lane l owns dims l, l+32, …,
/// fmaf from +0, xor butterfly 16…1), then ×τ; the history split into chunks of `chunk` list
/// positions (chunk c = entries [c·chunk, (c+1)·chunk)); m = the max of s_h and every chunk's max
/// (exact in any grouping); per chunk, den_c and acc_c[d] summed over its visible entries in list
/// order from +0 (acc_c by fmaf with e_j = e^(z_j − m)); then den = e^(s_h − m) + den_0 + den_1 + …
/// and acc[d] = +0 + acc_0[d] + acc_1[d] + … in chunk order; out = acc / den. The chunk size is
/// part of the Order — never a function of the row count, the history length or the device
/// (DESIGN §3a) — so the split schedule (chunks in parallel) is the whole one's arithmetic.
#pragma once
#include <cstddef>
#include <string_view>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/attention/kernel.hpp"
#include "ordo/ops/attention/problem.hpp"
#include "ordo/spec/axis_name.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::attention {

struct op {
  static constexpr std::string_view name = "attention";
  using problem = attention::problem;

  /// Decode (1), verify (2–6), prefill chunks (8, 16) × kv64 (shipped: a DS4 history of 128 raw +
  /// 512 selected rows is 10 chunks) and kv32 (P5 non-vacuity: another chunking gives other bits)
  /// × visibility × schedule: every combination is compiled.
  template <class Preset>
  using axes = meta::type_list<tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>::as_rows<meta::type_list>,
                               meta::type_list<kv_chunked<64>, kv_chunked<32>>,
                               meta::type_list<spec::option<visibility::general>, spec::option<visibility::direct>>,
                               meta::type_list<spec::option<schedule::whole>, spec::option<schedule::split>>>;

  template <class Tier, class Order, class V, class S>
  static constexpr bool valid = true;

  template <class Preset, class Tier, class Order, class V, class S>
  using kernel = attention::kernel<Tier::value, Order, V::value, S::value>;

  struct info {
    int chunk;  // list entries per chunk of the Order
    visibility sees;
    schedule runs;
    std::size_t (*workspace)(const problem&);  // floats the split schedule needs
  };
  template <class Tier, class Order, class V, class S>
  static constexpr info describe() {
    return {Order::chunk, V::value, S::value, &workspace_floats<Order>};
  }
};

}  // namespace ordo::ops::attention
