/// Test helper: a hand-rolled GGUF byte builder, independent of ordo's writer, so reader tests
/// and the malformed-file corpus do not take their expected bytes from the code under test.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ordo::gguf::test {

struct gguf_bytes {
  std::vector<std::byte> b;

  template <class T>
  gguf_bytes& put(T x) {
    const auto at = b.size();
    b.resize(at + sizeof(T));
    std::memcpy(b.data() + at, &x, sizeof(T));
    return *this;
  }
  gguf_bytes& u8(uint8_t x) { return put(x); }
  gguf_bytes& u32(uint32_t x) { return put(x); }
  gguf_bytes& u64(uint64_t x) { return put(x); }
  gguf_bytes& raw(std::string_view s) {
    for (char c : s) b.push_back(static_cast<std::byte>(c));
    return *this;
  }
  gguf_bytes& str(std::string_view s) { return u64(s.size()).raw(s); }
  /// "GGUF", version, tensor count, kv count.
  gguf_bytes& header(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
    return raw("GGUF").u32(version).u64(n_tensors).u64(n_kv);
  }
  gguf_bytes& kv_u32(std::string_view key, uint32_t x) { return str(key).u32(4).u32(x); }
  gguf_bytes& kv_str(std::string_view key, std::string_view x) { return str(key).u32(8).str(x); }
  /// A tensor info with 1..4 dims.
  gguf_bytes& tensor(std::string_view name, uint32_t type, std::vector<uint64_t> dims,
                     uint64_t offset) {
    str(name).u32(static_cast<uint32_t>(dims.size()));
    for (auto d : dims) u64(d);
    return u32(type).u64(offset);
  }
  gguf_bytes& pad_to(std::size_t alignment) {
    while (b.size() % alignment) b.push_back(std::byte{0});
    return *this;
  }
  gguf_bytes& fill(std::size_t n, uint8_t x = 0) {
    b.insert(b.end(), n, std::byte{x});
    return *this;
  }
};

}  // namespace ordo::gguf::test
