/// Reader for HF safetensors checkpoints: one file, or a directory of shards described by
/// `model.safetensors.index.json`. Only headers are read up front (parsed with nlohmann-json and
/// validated: known dtype, shape × element size == byte range, ranges inside the file and not
/// overlapping); tensor bytes are read on demand with pread, a slice at a time, so a converter can
/// stream a 150 GB checkpoint through a bounded buffer. Every error names the file and the tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ordo::convert {

/// Element types safetensors files carry (the names are the header's strings).
enum class st_dtype : std::uint8_t {
  f64, f32, f16, bf16, i64, i32, i16, i8, u8, boolean, f8_e4m3, f8_e5m2, f8_e8m0,
};

std::string_view st_dtype_name(st_dtype t);
std::size_t st_dtype_size(st_dtype t);

/// One tensor of one file. `offset` is absolute in the file (header already skipped).
struct st_tensor {
  std::string name;
  st_dtype dtype;
  std::vector<std::int64_t> shape;  // torch order: outermost first
  std::uint64_t offset = 0;
  std::uint64_t nbytes = 0;
  std::size_t file_index = 0;       // into checkpoint::files()

  std::int64_t numel() const;
};

/// A set of safetensors files seen as one name → tensor table. Move-only: it owns file handles.
class checkpoint {
 public:
  /// `path` is a .safetensors file or a directory. A directory uses model.safetensors.index.json
  /// when present (every mapped tensor must exist in the file the index names), else every
  /// *.safetensors file in it (sorted). A tensor name present twice is an error.
  static checkpoint open(const std::filesystem::path& path);

  checkpoint(checkpoint&&) noexcept;
  checkpoint& operator=(checkpoint&&) noexcept;
  ~checkpoint();

  /// Tensors sorted by name.
  const std::map<std::string, st_tensor, std::less<>>& tensors() const { return tensors_; }
  const st_tensor* find(std::string_view name) const;
  const st_tensor& at(std::string_view name) const;  // throws naming the tensor
  const std::vector<std::filesystem::path>& files() const { return files_; }
  /// The directory holding the checkpoint (where config.json is looked for).
  const std::filesystem::path& directory() const { return directory_; }

  /// Reads `out.size()` bytes starting `byte_offset` bytes into tensor `t`.
  void read(const st_tensor& t, std::uint64_t byte_offset, std::span<std::byte> out) const;
  std::vector<std::byte> read_all(const st_tensor& t) const;

 private:
  checkpoint() = default;
  void add_file(const std::filesystem::path& file);

  std::filesystem::path directory_;
  std::vector<std::filesystem::path> files_;
  std::vector<int> fds_;
  std::map<std::string, st_tensor, std::less<>> tensors_;
};

/// Parses one header (the JSON text after the 8-byte length) of a file whose data section
/// starts at `data_start` and is `data_size` bytes long; exposed for tests of the validation.
std::vector<st_tensor> parse_safetensors_header(std::string_view json_text, std::uint64_t data_start,
                                                std::uint64_t data_size, const std::string& file_label);

}  // namespace ordo::convert
