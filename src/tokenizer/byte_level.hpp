/// GPT-2's byte-to-unicode mapping used by byte-level BPE: every byte value maps to one printable
/// code point, so that a token of arbitrary bytes is a readable string. Printable Latin-1 bytes
/// ('!'..'~', '¡'..'¬', '®'..'ÿ') map to themselves; the other 68 bytes map, in ascending byte
/// order, to U+0100, U+0101, ... (so ' ' becomes 'Ġ' U+0120 and '\n' becomes 'Ċ' U+010A).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ordo::tokenizer {

/// The code point byte `b` maps to.
char32_t byte_to_code_point(uint8_t b);
/// The byte that code point `cp` stands for, or nullopt when `cp` is not in the mapping.
std::optional<uint8_t> code_point_to_byte(char32_t cp);

/// UTF-8 text of the mapped code point of every byte (1 or 2 bytes of UTF-8 each), by byte.
const std::array<std::string, 256>& byte_symbols();

/// `raw` bytes → mapped string (what the tokens of a `normal` token look like).
std::string bytes_to_symbols(std::string_view raw);
/// Mapped string → raw bytes; nullopt if `symbols` is not valid UTF-8 or holds a code point
/// outside the mapping.
std::optional<std::string> symbols_to_bytes(std::string_view symbols);

}  // namespace ordo::tokenizer
