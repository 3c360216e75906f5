#include "gguf/utf8.hpp"

#include <cstdint>
#include <cstdio>

namespace ordo::gguf::detail {

bool is_valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) len = 2, cp = c & 0x1f;
    else if ((c & 0xf0) == 0xe0) len = 3, cp = c & 0x0f;
    else if ((c & 0xf8) == 0xf0) len = 4, cp = c & 0x07;
    else return false;
    if (s.size() - i < len) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto d = static_cast<uint8_t>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    static constexpr uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_len[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += len;
  }
  return true;
}

}  // namespace ordo::gguf::detail

namespace ordo::gguf::detail {

std::optional<std::string> name_problem(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "contains control character 0x%02x at byte %zu", c, i);
      return std::string(buf);
    }
  }
  if (!is_valid_utf8(s)) return "is not valid UTF-8";
  return std::nullopt;
}

}  // namespace ordo::gguf::detail
