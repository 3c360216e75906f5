/// UTF-8 well-formedness (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF), used
/// for metadata keys and tensor names.
#pragma once
#include <string_view>

namespace ordo::gguf::detail {

bool is_valid_utf8(std::string_view s);

}  // namespace ordo::gguf::detail
