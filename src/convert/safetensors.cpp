// safetensors layout: u64 little-endian header length N, N bytes of JSON, then the data section;
// each tensor's data_offsets are relative to the start of the data section.
#include "convert/safetensors.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ordo::convert {

namespace {

struct dtype_entry {
  std::string_view name;
  st_dtype type;
  std::size_t size;
};

constexpr dtype_entry kDtypes[] = {
    {"F64", st_dtype::f64, 8},          {"F32", st_dtype::f32, 4},
    {"F16", st_dtype::f16, 2},          {"BF16", st_dtype::bf16, 2},
    {"I64", st_dtype::i64, 8},          {"I32", st_dtype::i32, 4},
    {"I16", st_dtype::i16, 2},          {"I8", st_dtype::i8, 1},
    {"U8", st_dtype::u8, 1},            {"BOOL", st_dtype::boolean, 1},
    {"F8_E4M3", st_dtype::f8_e4m3, 1},  {"F8_E5M2", st_dtype::f8_e5m2, 1},
    {"F8_E8M0", st_dtype::f8_e8m0, 1},
};

// A header larger than this is not a safetensors header (real ones are a few MB at most);
// refusing early gives a clear error instead of a huge allocation on a wrong file.
constexpr std::uint64_t kMaxHeaderBytes = std::uint64_t{1} << 30;

std::runtime_error error(const std::string& msg) { return std::runtime_error(msg); }

}  // namespace

std::string_view st_dtype_name(st_dtype t) {
  for (const auto& d : kDtypes)
    if (d.type == t) return d.name;
  return "?";
}

std::size_t st_dtype_size(st_dtype t) {
  for (const auto& d : kDtypes)
    if (d.type == t) return d.size;
  return 0;
}

std::int64_t st_tensor::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::vector<st_tensor> parse_safetensors_header(std::string_view json_text, std::uint64_t data_start,
                                                std::uint64_t data_size, const std::string& file_label) {
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw error(fmt::format("{}: safetensors header is not valid JSON: {}", file_label, e.what()));
  }
  if (!header.is_object())
    throw error(fmt::format("{}: safetensors header is not a JSON object", file_label));

  std::vector<st_tensor> out;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const auto where = [&] { return fmt::format("{}: tensor '{}'", file_label, name); };
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
        !entry.contains("data_offsets"))
      throw error(where() + ": entry needs dtype, shape and data_offsets");
    const auto& jd = entry["dtype"];
    if (!jd.is_string()) throw error(where() + ": dtype is not a string");
    const auto dname = jd.get<std::string>();
    const auto* d = std::find_if(std::begin(kDtypes), std::end(kDtypes),
                                 [&](const dtype_entry& e) { return e.name == dname; });
    if (d == std::end(kDtypes)) throw error(where() + fmt::format(": unsupported dtype '{}'", dname));

    st_tensor t;
    t.name = name;
    t.dtype = d->type;
    const auto& js = entry["shape"];
    if (!js.is_array()) throw error(where() + ": shape is not an array");
    std::uint64_t numel = 1;
    for (const auto& dim : js) {
      if (!dim.is_number_integer() || dim.get<std::int64_t>() < 0)
        throw error(where() + ": shape entries must be non-negative integers");
      const auto v = dim.get<std::int64_t>();
      t.shape.push_back(v);
      if (v != 0 && numel > (std::uint64_t{1} << 62) / static_cast<std::uint64_t>(v))
        throw error(where() + ": shape overflows");
      numel *= static_cast<std::uint64_t>(v);
    }
    const auto& jo = entry["data_offsets"];
    if (!jo.is_array() || jo.size() != 2 || !jo[0].is_number_unsigned() || !jo[1].is_number_unsigned())
      throw error(where() + ": data_offsets must be two non-negative integers");
    const auto begin = jo[0].get<std::uint64_t>();
    const auto end = jo[1].get<std::uint64_t>();
    if (end < begin) throw error(where() + fmt::format(": data_offsets [{}, {}] are reversed", begin, end));
    if (end > data_size)
      throw error(where() + fmt::format(": data_offsets end {} is past the data section ({} bytes; "
                                        "file truncated?)", end, data_size));
    const std::uint64_t expect = numel * d->size;
    if (end - begin != expect)
      throw error(where() + fmt::format(": {} bytes for dtype {} shape of {} elements needs {} bytes",
                                        end - begin, dname, numel, expect));
    t.offset = data_start + begin;
    t.nbytes = expect;
    out.push_back(std::move(t));
  }

  // Byte ranges must not overlap (two tensors sharing bytes means a corrupt or hostile header).
  std::vector<const st_tensor*> by_offset;
  for (const auto& t : out) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const st_tensor* a, const st_tensor* b) { return a->offset < b->offset; });
  for (std::size_t i = 1; i < by_offset.size(); ++i) {
    const auto* prev = by_offset[i - 1];
    if (prev->nbytes != 0 && by_offset[i]->nbytes != 0 && prev->offset + prev->nbytes > by_offset[i]->offset)
      throw error(fmt::format("{}: tensors '{}' and '{}' overlap", file_label, prev->name, by_offset[i]->name));
  }
  return out;
}

checkpoint::checkpoint(checkpoint&& o) noexcept
    : directory_(std::move(o.directory_)), files_(std::move(o.files_)), fds_(std::move(o.fds_)),
      tensors_(std::move(o.tensors_)) {
  o.fds_.clear();
}

checkpoint& checkpoint::operator=(checkpoint&& o) noexcept {
  if (this != &o) {
    for (int fd : fds_) ::close(fd);
    directory_ = std::move(o.directory_);
    files_ = std::move(o.files_);
    fds_ = std::move(o.fds_);
    tensors_ = std::move(o.tensors_);
    o.fds_.clear();
  }
  return *this;
}

checkpoint::~checkpoint() {
  for (int fd : fds_) ::close(fd);
}

void checkpoint::add_file(const std::filesystem::path& file) {
  const std::string label = file.string();
  const int fd = ::open(label.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw error(fmt::format("{}: cannot open: {}", label, std::strerror(errno)));
  fds_.push_back(fd);
  files_.push_back(file);
  const std::size_t index = files_.size() - 1;

  struct stat st {};
  if (::fstat(fd, &st) != 0) throw error(fmt::format("{}: cannot stat: {}", label, std::strerror(errno)));
  const auto file_size = static_cast<std::uint64_t>(st.st_size);
  if (file_size < 8) throw error(fmt::format("{}: too short for a safetensors file ({} bytes)", label, file_size));

  unsigned char len_bytes[8];
  if (::pread(fd, len_bytes, 8, 0) != 8) throw error(fmt::format("{}: cannot read the header length", label));
  std::uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | len_bytes[i];
  if (header_len > kMaxHeaderBytes || header_len > file_size - 8)
    throw error(fmt::format("{}: header length {} does not fit in a {}-byte file (not a safetensors file?)",
                            label, header_len, file_size));
  std::string text(header_len, '\0');
  std::uint64_t got = 0;
  while (got < header_len) {
    const auto n = ::pread(fd, text.data() + got, header_len - got, static_cast<off_t>(8 + got));
    if (n <= 0) throw error(fmt::format("{}: cannot read the header", label));
    got += static_cast<std::uint64_t>(n);
  }
  const std::uint64_t data_start = 8 + header_len;
  for (auto& t : parse_safetensors_header(text, data_start, file_size - data_start, label)) {
    t.file_index = index;
    if (const auto* prev = find(t.name))
      throw error(fmt::format("tensor '{}' is in both {} and {}", t.name, files_[prev->file_index].string(), label));
    auto name = t.name;
    tensors_.emplace(std::move(name), std::move(t));
  }
}

checkpoint checkpoint::open(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  checkpoint ck;
  if (!fs::exists(path)) throw error(fmt::format("{}: no such file or directory", path.string()));
  if (!fs::is_directory(path)) {
    ck.directory_ = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    ck.add_file(path);
    return ck;
  }
  ck.directory_ = path;
  const auto index_path = path / "model.safetensors.index.json";
  if (fs::exists(index_path)) {
    nlohmann::json index;
    try {
      std::ifstream in(index_path);
      index = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw error(fmt::format("{}: not valid JSON: {}", index_path.string(), e.what()));
    }
    if (!index.contains("weight_map") || !index["weight_map"].is_object())
      throw error(fmt::format("{}: no \"weight_map\" object", index_path.string()));
    std::vector<std::string> shard_names;
    for (const auto& [name, file] : index["weight_map"].items()) {
      if (!file.is_string())
        throw error(fmt::format("{}: weight_map entry '{}' is not a file name", index_path.string(), name));
      shard_names.push_back(file.get<std::string>());
    }
    std::sort(shard_names.begin(), shard_names.end());
    shard_names.erase(std::unique(shard_names.begin(), shard_names.end()), shard_names.end());
    for (const auto& shard : shard_names) {
      if (shard.find("..") != std::string::npos || fs::path(shard).is_absolute())
        throw error(fmt::format("{}: shard name '{}' leaves the checkpoint directory", index_path.string(), shard));
      ck.add_file(path / shard);
    }
    for (const auto& [name, file] : index["weight_map"].items()) {
      const auto* t = ck.find(name);
      if (t == nullptr || ck.files_[t->file_index].filename() != fs::path(file.get<std::string>()).filename())
        throw error(fmt::format("{}: tensor '{}' is mapped to {} but that file does not hold it",
                                index_path.string(), name, file.get<std::string>()));
    }
    return ck;
  }
  std::vector<fs::path> shards;
  for (const auto& entry : fs::directory_iterator(path))
    if (entry.is_regular_file() && entry.path().extension() == ".safetensors") shards.push_back(entry.path());
  if (shards.empty())
    throw error(fmt::format("{}: no model.safetensors.index.json and no *.safetensors files", path.string()));
  std::sort(shards.begin(), shards.end());
  for (const auto& s : shards) ck.add_file(s);
  return ck;
}

const st_tensor* checkpoint::find(std::string_view name) const {
  const auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

const st_tensor& checkpoint::at(std::string_view name) const {
  if (const auto* t = find(name)) return *t;
  throw error(fmt::format("{}: checkpoint has no tensor '{}'", directory_.string(), name));
}

void checkpoint::read(const st_tensor& t, std::uint64_t byte_offset, std::span<std::byte> out) const {
  if (byte_offset + out.size() > t.nbytes)
    throw error(fmt::format("{}: read of [{}, {}) is outside tensor '{}' ({} bytes)",
                            files_[t.file_index].string(), byte_offset, byte_offset + out.size(), t.name, t.nbytes));
  std::uint64_t done = 0;
  while (done < out.size()) {
    const auto n = ::pread(fds_[t.file_index], out.data() + done, out.size() - done,
                           static_cast<off_t>(t.offset + byte_offset + done));
    if (n <= 0)
      throw error(fmt::format("{}: reading tensor '{}' failed: {}", files_[t.file_index].string(), t.name,
                              n == 0 ? "unexpected end of file" : std::strerror(errno)));
    done += static_cast<std::uint64_t>(n);
  }
}

std::vector<std::byte> checkpoint::read_all(const st_tensor& t) const {
  std::vector<std::byte> out(t.nbytes);
  read(t, 0, out);
  return out;
}

}  // namespace ordo::convert
