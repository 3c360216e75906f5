// libFuzzer harness for the GGUF reader. Every input must either load or throw gguf::error;
// anything else (a crash, a sanitizer report, another exception) is a finding. What loads is
// also read completely and written back with gguf::writer, which must accept it and produce a
// file that reads back identical: reader and writer agree on what a valid file is.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ordo/model/gguf.hpp"

namespace {

using namespace ordo::gguf;

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "gguf_fuzz: %s\n", what);
  std::abort();
}

void exercise(const file& f) {
  for (const auto& kv : f.metadata()) {
    (void)kv.val.render();
    (void)f.find(kv.key);
  }
  uint64_t sum = 0;
  for (const auto& t : f.tensors()) {
    if (f.find_tensor(t.name) != &t) finding("find_tensor does not return the table entry");
    for (std::byte b : t.bytes()) sum += uint8_t(b);
  }
  volatile uint64_t sink = sum;
  (void)sink;

  std::vector<tensor_spec> specs;
  std::vector<std::vector<std::byte>> data;
  for (const auto& t : f.tensors()) {
    specs.push_back({t.name, t.type, t.dims});
    data.emplace_back(t.bytes().begin(), t.bytes().end());
  }
  std::vector<std::byte> again;
  try {
    again = writer::to_bytes(f.metadata(), specs, data);
  } catch (const error& e) {
    std::fprintf(stderr, "writer refused a file the reader accepted: %s\n", e.what());
    finding("reader/writer disagree");
  }
  try {
    const file g = file::from_bytes(std::move(again), "rewritten");
    if (!(g.metadata() == f.metadata())) finding("metadata changed in a write/read round trip");
    if (g.tensors().size() != specs.size()) finding("tensor count changed in a round trip");
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const auto& t = g.tensors()[i];
      if (t.name != specs[i].name || t.type != specs[i].type || t.dims != specs[i].dims)
        finding("tensor info changed in a round trip");
      if (!std::equal(t.bytes().begin(), t.bytes().end(), data[i].begin(), data[i].end()))
        finding("tensor bytes changed in a round trip");
    }
  } catch (const error& e) {
    std::fprintf(stderr, "reader rejected the writer's output: %s\n", e.what());
    finding("reader/writer disagree");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = std::byte(data[i]);
  try {
    const file f = file::from_bytes(std::move(bytes), "fuzz");
    exercise(f);
  } catch (const error&) {
    // Rejected with a message: the expected outcome for most inputs.
  }
  return 0;
}
