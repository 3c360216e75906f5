/// A compile-time list of types, without Hana, so device code and ops can carry lists of formats,
/// orders and other tags (the registry turns them into Hana tuples where it needs algorithms).
#pragma once

#include <cstddef>

namespace ordo::meta {

/// A compile-time list of types; only its size is exposed, callers unpack it by deduction.
template <class... Ts>
struct type_list {
  static constexpr std::size_t size = sizeof...(Ts);
};

}  // namespace ordo::meta
