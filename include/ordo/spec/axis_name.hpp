/// The name trait of a spec axis value. A tag type names itself with `static constexpr name`
/// (formats "q8_0", orders "ls32"); a tier `rows<R>` is "r<R>"; an option enum value
/// `option<E::value>` is named by an `ordo_name(E)` function found by ADL beside the enum (the
/// ck_tile `…EnumName` idea), so a family's options need no central table.
#pragma once
#include <string_view>
#include <type_traits>

#include "ordo/spec/name.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::spec {

/// An option axis value: a scoped enum constant lifted to a type.
template <auto V>
  requires std::is_enum_v<decltype(V)>
using option = std::integral_constant<decltype(V), V>;

template <class T>
struct axis_name;

template <class T>
  requires requires { std::string_view(T::name); }
struct axis_name<T> {
  static constexpr name_text value{std::string_view(T::name)};
};

template <int R>
struct axis_name<tier::rows<R>> {
  static constexpr name_text value = [] {
    name_text n{"r"};
    n.append_int(R);
    return n;
  }();
};

template <class E, E V>
  requires std::is_enum_v<E>
struct axis_name<std::integral_constant<E, V>> {
  static constexpr name_text value{ordo_name(V)};
};

template <class T>
inline constexpr name_text axis_name_v = axis_name<T>::value;

}  // namespace ordo::spec
