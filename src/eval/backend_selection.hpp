/// `--backend auto|cpu|gpu|ref`: which built backend a command runs on. auto prefers the GPU
/// runtime when this build has one and the driver reports a device, else the exact CPU executor,
/// else the double-precision reference, and says which it chose and why (the caller prints it on
/// stderr). An explicit name this build lacks is refused before any work, listing what it has.
/// The choice is a pure function of the request and the built backends, so tests feed it fake
/// tables (a GPU backend with and without a device) that this build cannot make.
#pragma once
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "eval/backend.hpp"

namespace ordo::eval {

/// Every name --backend accepts in some build; auto's preference is gpu, cpu, ref.
inline constexpr std::array<std::string_view, 4> backend_choices = {"auto", "cpu", "gpu", "ref"};

struct backend_choice {
  std::string name;  // a built backend's name, never "auto"
  std::string note;  // auto only: "--backend auto: ref (this build has no gpu or cpu backend)"
};

/// Resolves `requested` against `built`. Throws std::invalid_argument naming --backend: for a
/// name outside backend_choices, or a backend `built` lacks (the message lists the built ones,
/// auto included).
backend_choice choose_backend(std::string_view requested, std::span<const backend_kind> built);

/// The same over this build's built_backends().
backend_choice choose_backend(std::string_view requested);

/// "auto (gpu, cpu or ref: the first this build has and can run), cpu, gpu, ref; this build has:
/// ref" — for --help.
std::string backend_help();

}  // namespace ordo::eval
