// Round trips: random metadata of every value type (nested arrays included) and random tensors
// of several ggml types, written by gguf::writer and read back: identical metadata, table and
// bytes. The file layout is also checked against the format rules directly (aligned offsets,
// tensors packed in order), not only against what the writer says it did.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <filesystem>

#include "ordo/model/gguf.hpp"

namespace ordo::gguf {
namespace {

rc::Gen<value> gen_scalar(value_type t) {
  using namespace rc;
  switch (t) {
    case value_type::u8: return gen::map(gen::arbitrary<uint8_t>(), value::u8);
    case value_type::i8: return gen::map(gen::arbitrary<int8_t>(), value::i8);
    case value_type::u16: return gen::map(gen::arbitrary<uint16_t>(), value::u16);
    case value_type::i16: return gen::map(gen::arbitrary<int16_t>(), value::i16);
    case value_type::u32: return gen::map(gen::arbitrary<uint32_t>(), value::u32);
    case value_type::i32: return gen::map(gen::arbitrary<int32_t>(), value::i32);
    case value_type::u64: return gen::map(gen::arbitrary<uint64_t>(), value::u64);
    case value_type::i64: return gen::map(gen::arbitrary<int64_t>(), value::i64);
    // Floats from raw bits: NaN payloads, infinities, -0 and subnormals must survive.
    case value_type::f32:
      return gen::map(gen::arbitrary<uint32_t>(),
                      [](uint32_t b) { return value::f32(std::bit_cast<float>(b)); });
    case value_type::f64:
      return gen::map(gen::arbitrary<uint64_t>(),
                      [](uint64_t b) { return value::f64(std::bit_cast<double>(b)); });
    case value_type::boolean: return gen::map(gen::arbitrary<bool>(), value::boolean);
    case value_type::string:
      return gen::map(gen::container<std::string>(gen::arbitrary<char>()), value::string);
    case value_type::array: break;
  }
  return gen::just(value::u8(0));
}

rc::Gen<value_type> gen_scalar_type() {
  // inRange scales with the test size; resize(100) makes every type equally likely from the start.
  return rc::gen::map(rc::gen::resize(100, rc::gen::inRange<uint32_t>(0, 12)), [](uint32_t id) {
    return static_cast<value_type>(id == 9 ? 12 : id);  // 9 is `array`: remapped to f64
  });
}

// An array at nesting `depth` (1 = top level): its items are scalars, strings or (while depth
// allows) arrays of any element type.
rc::Gen<value> gen_array(int depth) {
  using namespace rc;
  const bool may_nest = depth < 3;
  return gen::mapcat(gen::resize(100, gen::inRange(0, may_nest ? 4 : 3)), [depth](int kind) -> Gen<value> {
    const auto make = [](value_type et, Gen<value> item) {
      return gen::mapcat(gen::inRange<std::size_t>(0, 6), [et, item](std::size_t n) {
        return gen::map(gen::container<std::vector<value>>(n, item), [et](std::vector<value> xs) {
          return value::array(et, std::move(xs));
        });
      });
    };
    if (kind == 3) return make(value_type::array, gen_array(depth + 1));
    return gen::mapcat(gen_scalar_type(), [make](value_type et) { return make(et, gen_scalar(et)); });
  });
}

rc::Gen<value> gen_value() {
  using namespace rc;
  return gen::mapcat(gen::resize(100, gen::inRange(0, 4)), [](int kind) -> Gen<value> {
    if (kind == 0) return gen_array(1);
    return gen::mapcat(gen_scalar_type(), gen_scalar);
  });
}

rc::Gen<std::vector<key_value>> gen_metadata() {
  using namespace rc;
  return gen::map(gen::mapcat(gen::inRange<std::size_t>(0, 12),
                              [](std::size_t n) {
                                return gen::container<std::vector<value>>(n, gen_value());
                              }),
                  [](std::vector<value> vals) {
                    std::vector<key_value> kvs;
                    for (std::size_t i = 0; i < vals.size(); ++i)
                      kvs.push_back({"test.key" + std::to_string(i), std::move(vals[i])});
                    return kvs;
                  });
}

struct random_model {
  std::vector<key_value> metadata;
  std::vector<tensor_spec> tensors;
  std::vector<std::vector<std::byte>> data;
};

rc::Gen<random_model> gen_model() {
  using namespace rc;
  static const std::vector<ggml_type> types{ggml_type::f32,  ggml_type::f16,   ggml_type::bf16,
                                            ggml_type::q8_0, ggml_type::q2_k,  ggml_type::q4_k,
                                            ggml_type::iq2_xxs, ggml_type::mxfp4, ggml_type::i32};
  return gen::exec([] {
    random_model m;
    m.metadata = *gen_metadata();
    const uint32_t align = *gen::element<uint32_t>(0, 1, 8, 32, 64, 4096);  // 0: absent
    if (align) m.metadata.push_back({"general.alignment", value::u32(align)});
    const int n = *gen::inRange(0, 6);
    for (int i = 0; i < n; ++i) {
      const ggml_type t = *gen::elementOf(types);
      const uint64_t block = ggml_traits(t).block_elems;
      std::vector<uint64_t> dims{block * *gen::inRange<uint64_t>(0, 4)};
      const int extra = *gen::inRange(0, 4);
      for (int d = 0; d < extra; ++d) dims.push_back(*gen::inRange<uint64_t>(1, 4));
      const uint64_t nb = tensor_nbytes(t, dims);
      m.tensors.push_back({"blk." + std::to_string(i) + ".w", t, dims});
      m.data.push_back(*gen::container<std::vector<std::byte>>(
          static_cast<std::size_t>(nb), gen::map(gen::arbitrary<uint8_t>(), [](uint8_t b) {
            return std::byte{b};
          })));
    }
    return m;
  });
}

void check_same(const random_model& m, const file& f) {
  RC_ASSERT(f.metadata() == m.metadata);
  RC_ASSERT(f.tensors().size() == m.tensors.size());
  const uint32_t align = f.alignment();
  RC_ASSERT(f.data_offset() % align == 0);
  uint64_t expect_offset = 0;
  for (std::size_t i = 0; i < m.tensors.size(); ++i) {
    const auto& t = f.tensors()[i];
    RC_ASSERT(t.name == m.tensors[i].name);
    RC_ASSERT(t.type == m.tensors[i].type);
    RC_ASSERT(t.dims == m.tensors[i].dims);
    RC_ASSERT(t.nbytes == m.data[i].size());
    // Packed in table order, each tensor at the next multiple of the alignment.
    RC_ASSERT(t.offset == expect_offset);
    expect_offset = (t.offset + t.nbytes + align - 1) / align * align;
    RC_ASSERT(std::equal(t.bytes().begin(), t.bytes().end(), m.data[i].begin(), m.data[i].end()));
  }
}

RC_GTEST_PROP(gguf_roundtrip, memory_image_reads_back_identical, ()) {
  const random_model m = *gen_model();
  bool nested = false;
  for (const auto& kv : m.metadata)
    nested = nested || (kv.val.is_array() && kv.val.element_type() == value_type::array);
  RC_CLASSIFY(nested, "nested arrays");
  RC_CLASSIFY(!m.tensors.empty(), "tensors");
  const auto bytes = writer::to_bytes(m.metadata, m.tensors, m.data);
  check_same(m, file::from_bytes(bytes, "rt"));
}

RC_GTEST_PROP(gguf_roundtrip, streamed_file_reads_back_identical_to_memory_image, ()) {
  const random_model m = *gen_model();
  const auto path = std::filesystem::temp_directory_path() /
                    ("ordo_gguf_rt_" + std::to_string(::getpid()) + ".gguf");
  {
    writer w(path, m.metadata, m.tensors);
    // Odd chunk sizes exercise chunk boundaries inside blocks.
    const std::size_t chunk = *rc::gen::inRange<std::size_t>(1, 100);
    for (std::size_t i = 0; i < m.tensors.size(); ++i)
      w.write_tensor(
          m.tensors[i].name,
          [&](uint64_t at, std::span<std::byte> out) {
            std::copy_n(m.data[i].begin() + static_cast<std::ptrdiff_t>(at), out.size(), out.begin());
          },
          chunk);
    RC_ASSERT(!std::filesystem::exists(path));  // only `.partial` until finish()
    w.finish();
    RC_ASSERT(std::filesystem::file_size(path) == w.file_size());
  }
  {
    const file f = file::open(path);
    check_same(m, f);
    const auto image = writer::to_bytes(m.metadata, m.tensors, m.data);
    RC_ASSERT(std::equal(f.bytes().begin(), f.bytes().end(), image.begin(), image.end()));
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ordo::gguf
