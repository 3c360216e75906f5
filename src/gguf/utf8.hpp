/// Checks on metadata keys and tensor names: UTF-8 well-formedness (RFC 3629: no overlongs, no
/// surrogates, nothing above U+10FFFF) and no ASCII control characters (a NUL would cut the name
/// short in every C API, ggml's included; tabs and newlines garble listings).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ordo::gguf::detail {

bool is_valid_utf8(std::string_view s);

/// Why `s` cannot be a key or tensor name ("is not valid UTF-8", "contains control character
/// 0x00 at byte 4"), or nullopt. Emptiness and length are checked by the callers.
std::optional<std::string> name_problem(std::string_view s);

}  // namespace ordo::gguf::detail
