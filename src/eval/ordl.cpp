#include "eval/ordl.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <string>

namespace ordo::eval {

static_assert(std::endian::native == std::endian::little, "ORDL I/O assumes a little-endian host");

namespace {
constexpr char magic[4] = {'O', 'R', 'D', 'L'};
constexpr uint32_t version = 1;
}  // namespace

void write_ordl(const std::filesystem::path& path, const ordl& d) {
  if (d.logits.size() != d.tokens.size() * d.n_vocab)
    throw std::runtime_error(path.string() + ": ORDL logits hold " + std::to_string(d.logits.size()) +
                             " values, expected n_pos * n_vocab = " + std::to_string(d.tokens.size() * d.n_vocab));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path.string() + ": cannot open for writing");
  const uint32_t header[3] = {version, static_cast<uint32_t>(d.tokens.size()), d.n_vocab};
  out.write(magic, 4);
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  out.write(reinterpret_cast<const char*>(d.tokens.data()), static_cast<std::streamsize>(d.tokens.size() * 4));
  out.write(reinterpret_cast<const char*>(d.logits.data()), static_cast<std::streamsize>(d.logits.size() * 4));
  if (!out.flush()) throw std::runtime_error(path.string() + ": write failed");
}

ordl read_ordl(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open ORDL file");
  char m[4];
  uint32_t header[3];
  if (!in.read(m, 4) || std::memcmp(m, magic, 4) != 0) throw std::runtime_error(path.string() + ": not an ORDL file (bad magic)");
  if (!in.read(reinterpret_cast<char*>(header), sizeof header)) throw std::runtime_error(path.string() + ": truncated ORDL header");
  if (header[0] != version)
    throw std::runtime_error(path.string() + ": ORDL version " + std::to_string(header[0]) + ", expected 1");
  ordl d;
  d.n_vocab = header[2];
  const uint64_t n_pos = header[1];
  const uint64_t expect = 16 + n_pos * 4 + n_pos * d.n_vocab * 4;
  if (std::filesystem::file_size(path) != expect)
    throw std::runtime_error(path.string() + ": ORDL size " + std::to_string(std::filesystem::file_size(path)) +
                             " bytes, expected " + std::to_string(expect) + " for " + std::to_string(n_pos) +
                             " positions of " + std::to_string(d.n_vocab) + " logits");
  d.tokens.resize(n_pos);
  d.logits.resize(n_pos * d.n_vocab);
  in.read(reinterpret_cast<char*>(d.tokens.data()), static_cast<std::streamsize>(n_pos * 4));
  in.read(reinterpret_cast<char*>(d.logits.data()), static_cast<std::streamsize>(d.logits.size() * 4));
  if (!in) throw std::runtime_error(path.string() + ": truncated ORDL data");
  return d;
}

}  // namespace ordo::eval
