#include "gguf/encode.hpp"

#include <bit>
#include <cstring>
#include <set>
#include <string_view>

#include "gguf/utf8.hpp"

namespace ordo::gguf::detail {
namespace {

// GGUF is little-endian and fields are copied with memcpy: only little-endian hosts are supported.
static_assert(std::endian::native == std::endian::little);

class byte_sink {
 public:
  template <class T>
  void put(T x) {
    const auto at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &x, sizeof(T));  // little-endian host, like GGUF
  }
  void put_string(std::string_view s) {
    put<uint64_t>(s.size());
    const auto at = out_.size();
    out_.resize(at + s.size());
    if (!s.empty()) std::memcpy(out_.data() + at, s.data(), s.size());
  }
  std::vector<std::byte> take() { return std::move(out_); }

 private:
  std::vector<std::byte> out_;
};

void put_value(byte_sink& s, const value& v) {
  switch (v.type()) {
    case value_type::u8: s.put(v.as_u8()); break;
    case value_type::i8: s.put(v.as_i8()); break;
    case value_type::u16: s.put(v.as_u16()); break;
    case value_type::i16: s.put(v.as_i16()); break;
    case value_type::u32: s.put(v.as_u32()); break;
    case value_type::i32: s.put(v.as_i32()); break;
    case value_type::u64: s.put(v.as_u64()); break;
    case value_type::i64: s.put(v.as_i64()); break;
    case value_type::f32: s.put(v.as_f32()); break;
    case value_type::f64: s.put(v.as_f64()); break;
    case value_type::boolean: s.put<uint8_t>(v.as_bool() ? 1 : 0); break;
    case value_type::string: s.put_string(v.as_string()); break;
    case value_type::array: {
      const auto& a = v.as_array();
      s.put(static_cast<uint32_t>(a.element_type));
      s.put<uint64_t>(a.items.size());
      for (const auto& it : a.items) put_value(s, it);
      break;
    }
  }
}

// Mirrors the reader's array checks (item types, nesting depth) so written files always load.
void check_value(const std::string& what, const value& v, std::size_t depth, uint64_t& values) {
  ++values;
  if (!v.is_array()) return;
  if (depth >= max_array_depth)
    throw error(what + ": arrays nested deeper than " + std::to_string(max_array_depth) + " levels");
  const auto& a = v.as_array();
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    if (a.items[i].type() != a.element_type)
      throw error(what + ": array of " + to_string(a.element_type) + " has item " +
                  std::to_string(i) + " of type " + to_string(a.items[i].type()));
    check_value(what, a.items[i], depth + 1, values);
  }
}

}  // namespace

uint32_t validate_for_write(const std::string& name, const std::vector<key_value>& metadata,
                            const std::vector<tensor_spec>& tensors) {
  auto fail = [&](const std::string& what) { throw error(name + ": " + what); };
  uint32_t alignment = default_alignment;
  std::set<std::string_view> keys;
  uint64_t values = 0;
  for (const auto& kv : metadata) {
    const std::string what = "metadata key '" + kv.key + "'";
    if (kv.key.empty()) fail("empty metadata key");
    if (kv.key.size() > 65535) fail(what + ": key longer than 65535 bytes");
    if (auto why = name_problem(kv.key)) fail(what + ": key " + *why);
    if (!keys.insert(kv.key).second) fail("duplicate " + what);
    try {
      check_value(what, kv.val, 0, values);
    } catch (const error& e) {
      fail(e.what());
    }
    if (kv.key == "general.alignment") {
      if (kv.val.type() != value_type::u32)
        fail(what + " must be u32, found " + to_string(kv.val.type()));
      alignment = kv.val.as_u32();
      if (alignment == 0 || !std::has_single_bit(alignment))
        fail(what + " = " + std::to_string(alignment) + " is not a power of two");
    }
  }
  if (values > max_metadata_values)
    fail("metadata holds " + std::to_string(values) + " values (arrays included), more than the " +
         std::to_string(max_metadata_values) + " a reader accepts");
  std::set<std::string_view> names;
  for (const auto& t : tensors) {
    const std::string what = "tensor '" + t.name + "'";
    if (t.name.empty()) fail("empty tensor name");
    if (t.name.size() > max_tensor_name_bytes)
      fail(what + ": name longer than " + std::to_string(max_tensor_name_bytes) + " bytes");
    if (auto why = name_problem(t.name)) fail(what + ": name " + *why);
    if (!names.insert(t.name).second) fail("duplicate " + what);
    try {
      (void)tensor_nbytes(t.type, t.dims);
    } catch (const error& e) {
      fail(what + ": " + e.what());
    }
  }
  return alignment;
}

std::vector<writer::layout_entry> plan_layout(std::vector<tensor_spec> tensors, uint32_t alignment) {
  std::vector<writer::layout_entry> out;
  out.reserve(tensors.size());
  uint64_t offset = 0;
  for (auto& t : tensors) {
    const uint64_t n = tensor_nbytes(t.type, t.dims);
    // Keep the data section below 2^63 bytes, as the reader's int64-sized checks expect.
    if (n > (uint64_t{1} << 62) || offset > (uint64_t{1} << 62))
      throw error("tensor '" + t.name + "': data section would exceed 2^62 bytes");
    out.push_back({std::move(t), offset, n});
    offset = align_up(offset + n, alignment);
  }
  return out;
}

std::vector<std::byte> encode_header(const std::vector<key_value>& metadata,
                                     const std::vector<writer::layout_entry>& layout) {
  byte_sink s;
  s.put<uint32_t>(0x46554747);  // "GGUF" read as a little-endian u32
  s.put<uint32_t>(3);
  s.put<uint64_t>(layout.size());
  s.put<uint64_t>(metadata.size());
  for (const auto& kv : metadata) {
    s.put_string(kv.key);
    s.put(static_cast<uint32_t>(kv.val.type()));
    put_value(s, kv.val);
  }
  for (const auto& e : layout) {
    s.put_string(e.spec.name);
    s.put<uint32_t>(static_cast<uint32_t>(e.spec.dims.size()));
    for (uint64_t d : e.spec.dims) s.put(d);
    s.put(static_cast<uint32_t>(e.spec.type));
    s.put(e.offset);
  }
  return s.take();
}

}  // namespace ordo::gguf::detail
