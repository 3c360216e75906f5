/// Runs code for a weight format known only at run time, as a ggml type id (GGUF tensors, the
/// converter, synth, the double-precision reference): `visit_format(type, f)` calls `f(F{})` with
/// the format tag F whose F::ggml_type is `type` and returns what it returns. This is the one
/// place that turns a ggml id into a format tag; callers write their per-format code once, as a
/// generic lambda `[&]<class F>(F) { ... }`, and a new format joins every caller through
/// all_formats. An id that is not an ordo weight format throws unsupported_format naming it.
/// Host-only (it throws).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "ordo/quant/formats.hpp"

namespace ordo::quant {

/// A ggml type id that is not one of all_formats. `ggml_type` is the id; what() names it, the
/// caller's context and the formats ordo has.
class unsupported_format : public std::invalid_argument {
 public:
  unsupported_format(std::uint32_t id, std::string_view what)
      : std::invalid_argument(std::string(what) + ": ggml type " + std::to_string(id) +
                              " is not an ordo weight format (ordo has " + known_formats() + ")"),
        ggml_type(id) {}
  std::uint32_t ggml_type;

 private:
  static std::string known_formats() {
    std::string s;
    for (const format_info& f : format_table)
      s += (s.empty() ? "" : ", ") + std::string(f.name) + " = " + std::to_string(f.ggml_type);
    return s;
  }
};

namespace detail {
// One comparison per format, in all_formats order; every branch must return the same type
// (decltype(auto) deduction enforces it), so the caller gets one result type for all formats.
template <class Fn, quant_format F, quant_format... Rest>
decltype(auto) visit_format_in(std::uint32_t id, Fn& f, std::string_view what) {
  if (id == F::ggml_type) return f(F{});
  if constexpr (sizeof...(Rest) == 0)
    throw unsupported_format(id, what);
  else
    return visit_format_in<Fn, Rest...>(id, f, what);
}
template <class Fn, quant_format... Fs>
decltype(auto) visit_format_list(meta::type_list<Fs...>, std::uint32_t id, Fn& f, std::string_view what) {
  return visit_format_in<Fn, Fs...>(id, f, what);
}
}  // namespace detail

/// Calls f(F{}) for the format F with F::ggml_type == ggml_type; `what` prefixes the message of
/// the unsupported_format thrown for any other id (a tensor name, the calling function).
template <class Fn>
decltype(auto) visit_format(std::uint32_t ggml_type, Fn&& f, std::string_view what = "visit_format") {
  return detail::visit_format_list(all_formats{}, ggml_type, f, what);
}

/// The same for a ggml type enum (gguf::ggml_type) without making quant depend on the GGUF reader.
template <class E, class Fn>
  requires std::is_enum_v<E>
decltype(auto) visit_format(E ggml_type, Fn&& f, std::string_view what = "visit_format") {
  return visit_format(static_cast<std::uint32_t>(static_cast<std::underlying_type_t<E>>(ggml_type)), f, what);
}

}  // namespace ordo::quant
