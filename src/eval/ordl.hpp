/// ORDL: the logits dump every `ordo eval` backend and every oracle driver writes, so parity tests
/// compare files. Little-endian: "ORDL", u32 version = 1, u32 n_pos, u32 n_vocab,
/// i32 tokens[n_pos], f32 logits[n_pos][n_vocab]; row i holds the logits after feeding tokens[i].
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <vector>

namespace ordo::eval {

struct ordl {
  uint32_t n_vocab = 0;
  std::vector<int32_t> tokens;  // [n_pos]
  std::vector<float> logits;    // [n_pos * n_vocab]

  std::span<const float> row(std::size_t pos) const { return {logits.data() + pos * n_vocab, n_vocab}; }
};

/// Writes `d` to `path`; throws std::runtime_error naming the path on I/O failure or a logits
/// size that is not tokens.size() * n_vocab.
void write_ordl(const std::filesystem::path& path, const ordl& d);

/// Reads and checks an ORDL file (magic, version, exact size); throws std::runtime_error naming
/// the path and what is wrong.
ordl read_ordl(const std::filesystem::path& path);

}  // namespace ordo::eval
