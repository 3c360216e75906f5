/// Compile-time spec names like "qmv.mxfp4.r4.ls32", derived from the types of a spec so a name
/// can never disagree with what was compiled. Host-only.
#pragma once
#include <cstddef>
#include <string_view>

namespace ordo::registry {

struct spec_name {
  char data[48]{};
  std::size_t size = 0;

  constexpr spec_name& append(std::string_view s) {
    for (char c : s) data[size++] = c;  // 48 bytes hold the longest name; overflow fails constant evaluation
    return *this;
  }
  constexpr spec_name& append_int(int v) {
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

/// "<op>.<format>.r<tier>.<order>"
constexpr spec_name make_spec_name(std::string_view op, std::string_view format, int tier, std::string_view order) {
  spec_name n;
  n.append(op).append(".").append(format).append(".r").append_int(tier).append(".").append(order);
  return n;
}

}  // namespace ordo::registry
