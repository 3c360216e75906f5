// gguf::file: parses and validates the whole header at open time (DESIGN: fail early with a
// message that names the problem), so accessors never need bounds checks.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>

#include "gguf/mapping.hpp"
#include "gguf/utf8.hpp"
#include "ordo/model/gguf.hpp"

namespace ordo::gguf {
namespace {

// GGUF is little-endian and fields are copied with memcpy: only little-endian hosts are supported.
static_assert(std::endian::native == std::endian::little);

// Longest metadata key (the GGUF spec bounds keys to 65535 bytes).
constexpr uint64_t max_key_bytes = 65535;

// Fewest file bytes one item of each kind occupies; counts are checked against them before any
// allocation so that a corrupt count cannot request more memory than the file could describe.
constexpr uint64_t min_kv_bytes = 8 + 4 + 1;                // key length, type, smallest value
constexpr uint64_t min_tensor_info_bytes = 8 + 4 + 8 + 4 + 8;  // name len, n_dims, ne0, type, offset
// Vectors are reserved at most this far ahead of what has actually been read (~10 MB of values):
// enough for a whole DS4 vocabulary at once, small enough that a corrupt count costs nothing.
constexpr uint64_t max_reserve = uint64_t{1} << 18;

uint64_t scalar_bytes(value_type t) {
  switch (t) {
    case value_type::u8: case value_type::i8: case value_type::boolean: return 1;
    case value_type::u16: case value_type::i16: return 2;
    case value_type::u32: case value_type::i32: case value_type::f32: return 4;
    case value_type::u64: case value_type::i64: case value_type::f64: return 8;
    case value_type::string: return 8;  // the length prefix of an empty string
    case value_type::array: return 12;  // element type + count of an empty array
  }
  return 1;
}

class cursor {
 public:
  cursor(std::span<const std::byte> bytes, const std::string& name) : b_(bytes), name_(name) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return b_.size() - pos_; }

  [[noreturn]] void fail(const std::string& what) const { throw error(name_ + ": " + what); }

  // `what` + `suffix` name the field; they are joined only when there is an error to report,
  // because these run once per vocabulary token.
  void need(uint64_t n, std::string_view what, std::string_view suffix = {}) const {
    if (n > remaining())
      fail("truncated file: " + std::string(what) + std::string(suffix) + " needs " +
           std::to_string(n) + " bytes at offset " +
           std::to_string(pos_) + ", only " + std::to_string(remaining()) + " left (file size " +
           std::to_string(b_.size()) + ")");
  }

  template <class T>
  T read(std::string_view what, std::string_view suffix = {}) {
    need(sizeof(T), what, suffix);
    T x;
    std::memcpy(&x, b_.data() + pos_, sizeof(T));  // GGUF is little-endian; so are our hosts
    pos_ += sizeof(T);
    return x;
  }

  /// Counts `n` more metadata values against max_metadata_values.
  void spend_values(uint64_t n, const std::string& what) {
    if (n > max_metadata_values - values_)
      fail(what + ": metadata holds more than " + std::to_string(max_metadata_values) +
           " values (arrays included)");
    values_ += n;
  }

  std::string read_string(const std::string& what, uint64_t max_len) {
    const uint64_t len = read<uint64_t>(what, " length");
    if (len > max_len)
      fail(what + " length " + std::to_string(len) + " exceeds the limit of " +
           std::to_string(max_len) + " bytes (at offset " + std::to_string(pos_ - 8) + ")");
    need(len, what);
    std::string s(reinterpret_cast<const char*>(b_.data() + pos_), static_cast<std::size_t>(len));
    pos_ += len;
    return s;
  }

 private:
  std::span<const std::byte> b_;
  const std::string& name_;
  uint64_t pos_ = 0;
  uint64_t values_ = 0;
};

value read_value(cursor& c, value_type t, const std::string& what, std::size_t depth);

value read_array(cursor& c, const std::string& what, std::size_t depth) {
  if (depth >= max_array_depth)
    c.fail(what + ": arrays nested deeper than " + std::to_string(max_array_depth) + " levels");
  const auto et_id = c.read<uint32_t>(what + " array element type");
  const auto et = static_cast<value_type>(et_id);
  if (!is_valid(et))
    c.fail(what + ": unknown array element type id " + std::to_string(et_id) + " at offset " +
           std::to_string(c.pos() - 4));
  const auto count = c.read<uint64_t>(what + " array length");
  const uint64_t min_item = scalar_bytes(et);
  if (count > c.remaining() / min_item)
    c.fail(what + ": array of " + std::to_string(count) + " " + to_string(et) +
           " items needs at least " + std::to_string(min_item) + " bytes each, only " +
           std::to_string(c.remaining()) + " bytes left at offset " + std::to_string(c.pos()));
  c.spend_values(count, what);
  std::vector<value> items;
  items.reserve(static_cast<std::size_t>(std::min(count, max_reserve)));
  // One label for all scalar items (the error names the offset): building "key[i]" for each of
  // a vocabulary's 129k tokens would cost more than reading them. Nested arrays get an index.
  const std::string item = what + " item";
  for (uint64_t i = 0; i < count; ++i)
    items.push_back(et == value_type::array
                        ? read_value(c, et, what + "[" + std::to_string(i) + "]", depth + 1)
                        : read_value(c, et, item, depth + 1));
  return value::array(et, std::move(items));
}

value read_value(cursor& c, value_type t, const std::string& what, std::size_t depth) {
  switch (t) {
    case value_type::u8: return value::u8(c.read<uint8_t>(what));
    case value_type::i8: return value::i8(c.read<int8_t>(what));
    case value_type::u16: return value::u16(c.read<uint16_t>(what));
    case value_type::i16: return value::i16(c.read<int16_t>(what));
    case value_type::u32: return value::u32(c.read<uint32_t>(what));
    case value_type::i32: return value::i32(c.read<int32_t>(what));
    case value_type::u64: return value::u64(c.read<uint64_t>(what));
    case value_type::i64: return value::i64(c.read<int64_t>(what));
    case value_type::f32: return value::f32(c.read<float>(what));
    case value_type::f64: return value::f64(c.read<double>(what));
    case value_type::boolean: {
      const auto b = c.read<uint8_t>(what);
      if (b > 1)
        c.fail(what + ": bool byte is " + std::to_string(b) + ", expected 0 or 1 (offset " +
               std::to_string(c.pos() - 1) + ")");
      return value::boolean(b == 1);
    }
    case value_type::string: return value::string(c.read_string(what, ~uint64_t{0}));
    case value_type::array: return read_array(c, what, depth);
  }
  c.fail(what + ": unknown value type id " + std::to_string(static_cast<uint32_t>(t)));
}

}  // namespace

struct file::impl {
  std::string name;
  detail::mapping map;
  uint32_t version = 0;
  uint32_t alignment = default_alignment;
  uint64_t data_offset = 0;
  std::vector<key_value> metadata;
  std::unordered_map<std::string_view, std::size_t> key_index;  // views into metadata keys
  std::vector<tensor_info> tensors;
  std::unordered_map<std::string_view, std::size_t> tensor_index;

  void parse();
  void parse_header();
};

// Every failure leaves as gguf::error: an allocation that fails despite the count bounds (a
// huge but well-formed file on a small machine) is reported against the file too.
void file::impl::parse() {
  try {
    parse_header();
  } catch (const std::bad_alloc&) {
    throw error(name + ": out of memory while reading the header");
  } catch (const std::length_error&) {
    throw error(name + ": out of memory while reading the header");
  }
}

void file::impl::parse_header() {
  const auto bytes = map.bytes();
  cursor c(bytes, name);
  c.need(4, "the magic");
  if (std::memcmp(bytes.data(), "GGUF", 4) != 0) {
    std::string got;
    for (int i = 0; i < 4; ++i) {
      const auto ch = static_cast<unsigned char>(bytes[i]);
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", ch);
      got += (ch >= 0x20 && ch < 0x7f) ? std::string(1, char(ch)) : std::string(hex);
    }
    c.fail("not a GGUF file: magic is \"" + got + "\", expected \"GGUF\"");
  }
  (void)c.read<uint32_t>("the magic");
  version = c.read<uint32_t>("the version");
  if (version != 3) {
    if (version == 0x03000000u) c.fail("big-endian GGUF files are not supported");
    c.fail("GGUF version " + std::to_string(version) + " is not supported (only version 3)");
  }
  const auto n_tensors = c.read<uint64_t>("the tensor count");
  const auto n_kv = c.read<uint64_t>("the metadata count");
  if (n_kv > c.remaining() / min_kv_bytes)
    c.fail("metadata count " + std::to_string(n_kv) + " cannot fit in the " +
           std::to_string(c.remaining()) + " bytes after the header");
  if (n_tensors > (c.remaining() - n_kv * min_kv_bytes) / min_tensor_info_bytes)
    c.fail("tensor count " + std::to_string(n_tensors) + " cannot fit in the " +
           std::to_string(c.remaining()) + " bytes after the header");

  c.spend_values(n_kv, "metadata");
  metadata.reserve(static_cast<std::size_t>(std::min(n_kv, max_reserve)));
  for (uint64_t i = 0; i < n_kv; ++i) {
    const std::string where = "metadata entry #" + std::to_string(i);
    const uint64_t key_at = c.pos();
    std::string key = c.read_string(where + " key", max_key_bytes);
    if (key.empty()) c.fail(where + ": empty key (at offset " + std::to_string(key_at) + ")");
    if (auto why = detail::name_problem(key))
      c.fail(where + ": key " + *why + " (at offset " + std::to_string(key_at) + ")");
    const std::string what = "metadata key '" + key + "'";
    const auto type_id = c.read<uint32_t>(what + " value type");
    const auto t = static_cast<value_type>(type_id);
    if (!is_valid(t))
      c.fail(what + ": unknown value type id " + std::to_string(type_id) + " at offset " +
             std::to_string(c.pos() - 4));
    value v = read_value(c, t, what, 0);
    metadata.push_back({std::move(key), std::move(v)});
  }
  // Indexed after the loop: the views point into the keys, which no longer move.
  for (std::size_t i = 0; i < metadata.size(); ++i)
    if (!key_index.emplace(metadata[i].key, i).second)
      c.fail("duplicate metadata key '" + metadata[i].key + "'");

  if (auto it = key_index.find("general.alignment"); it != key_index.end()) {
    const value& a = metadata[it->second].val;
    if (a.type() != value_type::u32)
      c.fail("metadata key 'general.alignment' must be u32, found " + to_string(a.type()));
    alignment = a.as_u32();
    if (alignment == 0 || !std::has_single_bit(alignment))
      c.fail("metadata key 'general.alignment' = " + std::to_string(alignment) +
             " is not a power of two");
  }

  tensors.reserve(static_cast<std::size_t>(std::min(n_tensors, max_reserve)));
  for (uint64_t i = 0; i < n_tensors; ++i) {
    const std::string where = "tensor #" + std::to_string(i);
    const uint64_t name_at = c.pos();
    tensor_info t;
    t.name = c.read_string(where + " name", max_tensor_name_bytes);
    if (t.name.empty()) c.fail(where + ": empty name (at offset " + std::to_string(name_at) + ")");
    if (auto why = detail::name_problem(t.name))
      c.fail(where + ": name " + *why + " (at offset " + std::to_string(name_at) + ")");
    const std::string what = "tensor '" + t.name + "'";
    const auto n_dims = c.read<uint32_t>(what + " n_dims");
    if (n_dims == 0 || n_dims > max_dims)
      c.fail(what + ": n_dims = " + std::to_string(n_dims) + ", expected 1.." +
             std::to_string(max_dims));
    for (uint32_t d = 0; d < n_dims; ++d) t.dims.push_back(c.read<uint64_t>(what + " dims"));
    const auto type_id = c.read<uint32_t>(what + " type");
    if (!find_ggml_type(type_id))
      c.fail(what + ": unknown or removed ggml type id " + std::to_string(type_id));
    t.type = static_cast<ggml_type>(type_id);
    t.offset = c.read<uint64_t>(what + " offset");
    try {
      t.nbytes = tensor_nbytes(t.type, t.dims);
    } catch (const error& e) {
      c.fail(what + " (" + to_string(t.type) + "): " + e.what());
    }
    if (t.offset % alignment != 0)
      c.fail(what + ": offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
             std::to_string(alignment));
    tensors.push_back(std::move(t));
  }
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (!tensor_index.emplace(tensors[i].name, i).second)
      c.fail("duplicate tensor name '" + tensors[i].name + "'");

  // The data section starts at the next multiple of the alignment after the tensor table.
  const uint64_t header_end = c.pos();
  data_offset = header_end + (alignment - header_end % alignment) % alignment;
  const uint64_t size = bytes.size();
  for (auto& t : tensors) {
    const std::string what = "tensor '" + t.name + "'";
    // data_offset <= size is checked first so that size - data_offset cannot wrap.
    if (data_offset > size || t.offset > size - data_offset ||
        t.nbytes > size - data_offset - t.offset)
      c.fail(what + ": data [" + std::to_string(t.offset) + ", +" + std::to_string(t.nbytes) +
             ") at file offset " + std::to_string(data_offset) + " + " + std::to_string(t.offset) +
             " extends past the end of the file (" + std::to_string(size) + " bytes)");
    t.data = bytes.data() + data_offset + t.offset;
  }
  std::vector<std::size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return tensors[a].offset < tensors[b].offset;
  });
  const tensor_info* prev = nullptr;  // last non-empty tensor in offset order
  for (std::size_t i : order) {
    const tensor_info& t = tensors[i];
    if (t.nbytes == 0) continue;  // empty tensors occupy nothing
    if (prev && prev->offset + prev->nbytes > t.offset)
      c.fail("tensors '" + prev->name + "' [" + std::to_string(prev->offset) + ", +" +
             std::to_string(prev->nbytes) + ") and '" + t.name + "' [" +
             std::to_string(t.offset) + ", +" + std::to_string(t.nbytes) + ") overlap");
    prev = &t;
  }
}

file file::open(const std::filesystem::path& path) {
  auto p = std::make_unique<impl>();
  p->name = path.string();
  p->map = detail::mapping::map_file(path);
  p->parse();
  return file(std::move(p));
}

file file::from_bytes(std::vector<std::byte> bytes, std::string name) {
  auto p = std::make_unique<impl>();
  p->name = std::move(name);
  p->map = detail::mapping::own(std::move(bytes));
  p->parse();
  return file(std::move(p));
}

file::file(std::unique_ptr<impl> p) : p_(std::move(p)) {}
file::file(file&&) noexcept = default;
file& file::operator=(file&&) noexcept = default;
file::~file() = default;

const std::string& file::name() const { return p_->name; }
uint32_t file::version() const { return p_->version; }
uint32_t file::alignment() const { return p_->alignment; }
uint64_t file::data_offset() const { return p_->data_offset; }
std::span<const std::byte> file::bytes() const { return p_->map.bytes(); }
const std::vector<key_value>& file::metadata() const { return p_->metadata; }
const std::vector<tensor_info>& file::tensors() const { return p_->tensors; }

const value* file::find(std::string_view key) const {
  auto it = p_->key_index.find(key);
  return it == p_->key_index.end() ? nullptr : &p_->metadata[it->second].val;
}

const value& file::at(std::string_view key) const {
  if (const value* v = find(key)) return *v;
  throw error(p_->name + ": metadata key '" + std::string(key) + "' is missing");
}

const tensor_info* file::find_tensor(std::string_view name) const {
  auto it = p_->tensor_index.find(name);
  return it == p_->tensor_index.end() ? nullptr : &p_->tensors[it->second];
}

const tensor_info& file::tensor(std::string_view name) const {
  if (const tensor_info* t = find_tensor(name)) return *t;
  throw error(p_->name + ": tensor '" + std::string(name) + "' is missing");
}

void file::rethrow_for_key(std::string_view key, const error& e) const {
  throw error(p_->name + ": metadata key '" + std::string(key) + "': " + e.what());
}

#define ORDO_GGUF_GETTER(RET, NAME, CALL)                \
  RET file::NAME(std::string_view key) const {           \
    const value& v = at(key);                            \
    try {                                                \
      return v.CALL();                                   \
    } catch (const error& e) {                           \
      rethrow_for_key(key, e);                           \
    }                                                    \
  }
ORDO_GGUF_GETTER(uint32_t, get_u32, to_u32)
ORDO_GGUF_GETTER(int32_t, get_i32, to_i32)
ORDO_GGUF_GETTER(uint64_t, get_u64, to_u64)
ORDO_GGUF_GETTER(int64_t, get_i64, to_i64)
ORDO_GGUF_GETTER(float, get_f32, to_f32)
ORDO_GGUF_GETTER(double, get_f64, to_f64)
ORDO_GGUF_GETTER(bool, get_bool, as_bool)
ORDO_GGUF_GETTER(const std::string&, get_string, as_string)
#undef ORDO_GGUF_GETTER

uint64_t tensor_info::elements() const {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;  // validated at open: cannot overflow
  return n;
}

}  // namespace ordo::gguf
