/// The weight formats as a Boost.Hana tuple of types, for the registry's specialization spaces
/// (DESIGN §3). Host-only and Hana-dependent: ops/ must not include it (use formats.hpp there).
#pragma once

#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include "ordo/quant/formats.hpp"

namespace ordo::quant {

namespace detail {
template <class... Fs>
constexpr auto to_hana(meta::type_list<Fs...>) {
  return boost::hana::tuple_t<Fs...>;
}
}  // namespace detail

/// hana::tuple_t<f32, f16, bf16, q8_0, q2_k, q4_k, iq2_xxs, mxfp4>, the same order as all_formats.
inline constexpr auto format_tags = detail::to_hana(all_formats{});

}  // namespace ordo::quant
