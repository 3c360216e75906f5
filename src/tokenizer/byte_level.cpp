#include "tokenizer/byte_level.hpp"

#include "tokenizer/utf8.hpp"

namespace ordo::tokenizer {
namespace {

bool maps_to_itself(unsigned b) {
  return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct tables {
  std::array<char32_t, 256> to_cp{};
  std::array<std::string, 256> symbols;
  std::array<int16_t, 0x144> from_cp{};  // every mapped code point is below U+0144

  tables() {
    from_cp.fill(-1);
    unsigned next = 0;
    for (unsigned b = 0; b < 256; ++b) {
      to_cp[b] = maps_to_itself(b) ? char32_t(b) : char32_t(0x100 + next++);
      from_cp[to_cp[b]] = static_cast<int16_t>(b);
      append_utf8(symbols[b], to_cp[b]);
    }
  }
};

const tables& get() {
  static const tables t;
  return t;
}

}  // namespace

char32_t byte_to_code_point(uint8_t b) { return get().to_cp[b]; }

std::optional<uint8_t> code_point_to_byte(char32_t cp) {
  if (cp >= get().from_cp.size() || get().from_cp[cp] < 0) return std::nullopt;
  return static_cast<uint8_t>(get().from_cp[cp]);
}

const std::array<std::string, 256>& byte_symbols() { return get().symbols; }

std::string bytes_to_symbols(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() * 2);
  for (unsigned char c : raw) out += get().symbols[c];
  return out;
}

std::optional<std::string> symbols_to_bytes(std::string_view symbols) {
  std::string out;
  out.reserve(symbols.size());
  std::size_t i = 0;
  while (i < symbols.size()) {
    const utf8_step s = decode_utf8(symbols, i);
    if (!s.valid) return std::nullopt;
    const auto b = code_point_to_byte(s.cp);
    if (!b) return std::nullopt;
    out.push_back(static_cast<char>(*b));
    i += s.length;
  }
  return out;
}

}  // namespace ordo::tokenizer
