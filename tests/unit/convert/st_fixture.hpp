/// Test helpers: write small safetensors files (header via nlohmann-json, tensors packed in the
/// given order) and config.json files, in a fresh temporary directory per test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ordo::convert::testing {

struct st_entry {
  std::string name;
  std::string dtype;  // safetensors spelling: "F32", "BF16", "F8_E4M3", "I8", ...
  std::vector<std::int64_t> shape;
  std::vector<std::byte> data;
};

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
  std::vector<std::byte> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

inline std::vector<std::byte> random_bytes(std::mt19937& rng, std::size_t n) {
  std::vector<std::byte> out(n);
  std::uniform_int_distribution<int> d(0, 255);
  for (auto& b : out) b = static_cast<std::byte>(d(rng));
  return out;
}

/// Writes `entries` as one safetensors file (8-byte LE header length, JSON, data).
inline void write_safetensors(const std::filesystem::path& path, const std::vector<st_entry>& entries) {
  nlohmann::json header = nlohmann::json::object();
  header["__metadata__"] = {{"format", "pt"}};
  std::uint64_t offset = 0;
  for (const auto& e : entries) {
    header[e.name] = {{"dtype", e.dtype}, {"shape", e.shape}, {"data_offsets", {offset, offset + e.data.size()}}};
    offset += e.data.size();
  }
  std::string text = header.dump();
  while (text.size() % 8 != 0) text.push_back(' ');  // alignment padding, as safetensors does
  std::ofstream out(path, std::ios::binary);
  const std::uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (const auto& e : entries) out.write(reinterpret_cast<const char*>(e.data.data()), static_cast<std::streamsize>(e.data.size()));
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

/// A fresh empty directory under the system temp dir, removed by the destructor.
struct temp_dir {
  std::filesystem::path path;
  explicit temp_dir(const std::string& tag) {
    static std::mt19937_64 rng{std::random_device{}()};
    path = std::filesystem::temp_directory_path() / ("ordo-convert-" + tag + "-" + std::to_string(rng()));
    std::filesystem::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

}  // namespace ordo::convert::testing
