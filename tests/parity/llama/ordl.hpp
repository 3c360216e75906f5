/// Reader of the ORDL logits files llama_driver writes: "ORDL", u32 version = 1, u32 n_pos,
/// u32 n_vocab, i32 tokens[n_pos], f32 logits[n_pos][n_vocab] (little-endian). Header-only so
/// any parity test can read the oracle's output.
#pragma once
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace ordo::parity {

struct ordl {
  uint32_t n_pos = 0;
  uint32_t n_vocab = 0;
  std::vector<int32_t> tokens;  // [n_pos]
  std::vector<float> logits;    // [n_pos][n_vocab]
  const float* row(uint32_t pos) const { return logits.data() + std::size_t(pos) * n_vocab; }
};

inline ordl read_ordl(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (b.size() < 16 || std::memcmp(b.data(), "ORDL", 4) != 0) throw std::runtime_error(path + ": not an ORDL file");
  ordl o;
  uint32_t version = 0;
  std::memcpy(&version, b.data() + 4, 4);
  std::memcpy(&o.n_pos, b.data() + 8, 4);
  std::memcpy(&o.n_vocab, b.data() + 12, 4);
  if (version != 1) throw std::runtime_error(path + ": ORDL version " + std::to_string(version) + " (expected 1)");
  const std::size_t want = 16 + 4 * std::size_t(o.n_pos) + 4 * std::size_t(o.n_pos) * o.n_vocab;
  if (b.size() != want)
    throw std::runtime_error(path + ": " + std::to_string(b.size()) + " bytes, header says " + std::to_string(want));
  o.tokens.resize(o.n_pos);
  o.logits.resize(std::size_t(o.n_pos) * o.n_vocab);
  std::memcpy(o.tokens.data(), b.data() + 16, 4 * o.tokens.size());
  std::memcpy(o.logits.data(), b.data() + 16 + 4 * o.tokens.size(), 4 * o.logits.size());
  return o;
}

}  // namespace ordo::parity
