/// Row-count tiers. A tier `rows<R>` is the compile-time capacity of a kernel: how many activation
/// rows share one weight load. Tail rows (n < R) are masked: never read, never written. The tier
/// decides nothing else (DESIGN §3, the structural rule behind E1).
#pragma once
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace ordo::tier {

template <int R>
using rows = std::integral_constant<int, R>;

/// An ascending list of tiers, e.g. tier_list<1, 2, 4, 8>.
template <int... Rs>
struct tier_list {
  static constexpr std::array<int, sizeof...(Rs)> values{Rs...};
  static_assert(sizeof...(Rs) > 0, "a tier list needs at least one tier");
  static constexpr bool ascending() {
    for (std::size_t i = 1; i < values.size(); ++i)
      if (values[i - 1] >= values[i]) return false;
    return values[0] >= 1;
  }
  static_assert(ascending(), "tiers must be positive and strictly ascending");
  static constexpr int largest = values[sizeof...(Rs) - 1];
  /// The tiers as axis types, for a spec space: std::tuple<rows<Rs>...>.
  template <template <class...> class List>
  using as_rows = List<rows<Rs>...>;
};

/// The smallest tier of `List` that holds n rows (1 <= n <= largest); throws otherwise.
template <class List>
constexpr int tier_for(int n) {
  for (int r : List::values)
    if (n <= r && n >= 1) return r;
  throw std::out_of_range("tier_for: " + std::to_string(n) + " rows is outside the tier list (1.." +
                          std::to_string(List::largest) + ")");
}

}  // namespace ordo::tier
