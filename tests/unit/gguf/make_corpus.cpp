// gguf_make_corpus DIR: writes the hand-built cases of gguf_cases.hpp and a few valid files from
// gguf::writer into DIR as the seed corpus of the fuzzer and the replay test. The committed
// corpus is regenerated with
//   build/<dir>/tests/unit/gguf/gguf_make_corpus tests/unit/gguf/corpus
// (gguf_corpus_test fails when a committed case no longer matches gguf_cases.hpp).
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "gguf_cases.hpp"
#include "ordo/model/gguf.hpp"

namespace {

using namespace ordo::gguf;

void put(const std::filesystem::path& p, const std::vector<std::byte>& bytes) {
  std::ofstream o(p, std::ios::binary);
  o.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!o) throw std::runtime_error("cannot write " + p.string());
}

// A valid file with one value of every type (nested arrays too) and a tensor of each DS4 type.
std::vector<std::byte> every_type_seed() {
  std::vector<key_value> m{
      {"general.architecture", value::string("deepseek4")},
      {"s.u8", value::u8(1)},       {"s.i8", value::i8(-1)},     {"s.u16", value::u16(2)},
      {"s.i16", value::i16(-2)},    {"s.u32", value::u32(3)},    {"s.i32", value::i32(-3)},
      {"s.u64", value::u64(4)},     {"s.i64", value::i64(-4)},   {"s.f32", value::f32(0.5f)},
      {"s.f64", value::f64(0.25)},  {"s.bool", value::boolean(false)},
      {"a.u32", value::array_of(std::vector<uint32_t>{1, 2, 3})},
      {"a.str", value::array_of(std::vector<std::string>{"x", "yy"})},
      {"a.nested", value::array(value_type::array,
                                {value::array_of(std::vector<int8_t>{-1}),
                                 value::array(value_type::string, {})})},
  };
  std::vector<tensor_spec> t{{"f32", ggml_type::f32, {2}},         {"f16", ggml_type::f16, {2, 2}},
                             {"q8", ggml_type::q8_0, {32}},        {"q2k", ggml_type::q2_k, {256}},
                             {"q4k", ggml_type::q4_k, {256}},      {"iq2", ggml_type::iq2_xxs, {256}},
                             {"mx", ggml_type::mxfp4, {32, 1, 2}}, {"i32", ggml_type::i32, {1, 1, 1, 1}}};
  std::vector<std::vector<std::byte>> d;
  for (const auto& s : t) d.emplace_back(tensor_nbytes(s.type, s.dims), std::byte{0x5a});
  return writer::to_bytes(m, t, d);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gguf_make_corpus DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  for (const auto& c : ordo::gguf::test::gguf_cases()) put(dir / (c.name + ".gguf"), c.bytes);
  put(dir / "ok_every_type.gguf", every_type_seed());
  put(dir / "ok_writer_empty.gguf", writer::to_bytes({}, {}, {}));
  std::printf("wrote the corpus to %s\n", dir.c_str());
  return 0;
}
