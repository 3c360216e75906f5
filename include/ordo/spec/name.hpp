/// A spec name as constexpr text ("qmv.mxfp4.r4.ls32"): a fixed buffer that constant evaluation
/// fills by appending, so names are computed from types and can never disagree with what was
/// compiled. 64 bytes hold every name; an overflow fails constant evaluation, not silently.
#pragma once
#include <cstddef>
#include <string_view>

namespace ordo::spec {

struct name_text {
  char data[64]{};
  std::size_t size = 0;

  constexpr name_text() = default;
  constexpr name_text(std::string_view s) { append(s); }  // NOLINT: implicit from text is the point
  constexpr name_text& append(std::string_view s) {
    for (char c : s) data[size++] = c;  // past 64 bytes: out-of-bounds write, a constant-evaluation error
    return *this;
  }
  constexpr name_text& append(const name_text& s) { return append(s.view()); }
  constexpr name_text& append_int(int v) {
    char digits[12]{};
    int n = 0;
    do {
      digits[n++] = char('0' + v % 10);
      v /= 10;
    } while (v > 0);
    while (n > 0) data[size++] = digits[--n];
    return *this;
  }
  constexpr std::string_view view() const { return {data, size}; }
};

}  // namespace ordo::spec
