// gguf::writer: header first, then tensors streamed in table order with size checks. Output goes
// to `<path>.partial` (renamed by finish) or, for to_bytes, to memory.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>

#include "gguf/encode.hpp"
#include "ordo/model/gguf_writer.hpp"

namespace ordo::gguf {

struct writer::impl {
  std::string name;  // final path (or "<memory>")
  std::filesystem::path final_path, partial_path;
  std::FILE* out = nullptr;       // null when writing to memory
  std::vector<std::byte>* memory = nullptr;
  uint32_t alignment = default_alignment;
  uint64_t data_offset = 0, total = 0;
  std::vector<layout_entry> layout;
  std::size_t next = 0;           // index of the next tensor to begin
  bool in_tensor = false;
  uint64_t tensor_written = 0;    // bytes of the current tensor so far
  uint64_t written = 0;           // file bytes so far
  bool finished = false;
  progress_hook hook;
  uint64_t hook_every = 0, since_hook = 0;

  [[noreturn]] void fail(const std::string& what) const { throw error(name + ": " + what); }

  void put(const std::byte* p, uint64_t n) {
    if (n == 0) return;
    if (memory) {
      memory->insert(memory->end(), p, p + n);
    } else if (std::fwrite(p, 1, n, out) != n) {
      fail("write failed at offset " + std::to_string(written) + " (" +
           partial_path.string() + "): " + std::strerror(errno));
    }
    written += n;
  }

  void pad_to(uint64_t target) {
    static constexpr std::byte zeros[256] = {};
    while (written < target) put(zeros, std::min<uint64_t>(sizeof zeros, target - written));
  }

  void report(bool force) {
    if (!hook || (!force && since_hook < hook_every)) return;
    since_hook = 0;
    write_progress p;
    p.tensor_index = next == 0 ? 0 : (in_tensor ? next - 1 : next);
    p.tensor_count = layout.size();
    p.bytes_written = written;
    p.bytes_total = total;
    if (in_tensor) p.tensor_name = layout[next - 1].spec.name;
    hook(p);
  }

  void close_file() noexcept {
    if (out) std::fclose(out);
    out = nullptr;
  }

  void start(std::vector<key_value> metadata, std::vector<tensor_spec> tensors) {
    alignment = detail::validate_for_write(name, metadata, tensors);
    layout = detail::plan_layout(std::move(tensors), alignment);
    const auto header = detail::encode_header(metadata, layout);
    // Like ggml, pad the header only when tensor data follows it.
    data_offset = layout.empty() ? header.size() : detail::align_up(header.size(), alignment);
    total = data_offset;
    // The last tensor is padded too, as ggml does, so both writers give identical files.
    if (!layout.empty())
      total += detail::align_up(layout.back().offset + layout.back().nbytes, alignment);
    put(header.data(), header.size());
    pad_to(data_offset);
  }
};

writer::writer(std::unique_ptr<impl> p) : p_(std::move(p)) {}

writer::writer(const std::filesystem::path& path, std::vector<key_value> metadata,
               std::vector<tensor_spec> tensors)
    : p_(std::make_unique<impl>()) {
  p_->name = path.string();
  p_->final_path = path;
  p_->partial_path = path;
  p_->partial_path += ".partial";
  p_->out = std::fopen(p_->partial_path.c_str(), "wb");
  if (!p_->out)
    p_->fail("cannot create " + p_->partial_path.string() + ": " + std::strerror(errno));
  // Large stdio buffer: tensor writes are big, metadata writes are many and small.
  std::setvbuf(p_->out, nullptr, _IOFBF, std::size_t{1} << 20);
  try {
    p_->start(std::move(metadata), std::move(tensors));
  } catch (...) {
    p_->close_file();
    std::error_code ec;
    std::filesystem::remove(p_->partial_path, ec);
    throw;
  }
}

writer::writer(writer&&) noexcept = default;
writer& writer::operator=(writer&&) noexcept = default;

writer::~writer() {
  if (!p_ || p_->finished || p_->memory) return;
  p_->close_file();
  std::error_code ec;
  std::filesystem::remove(p_->partial_path, ec);
}

void writer::on_progress(progress_hook hook, uint64_t every_bytes) {
  p_->hook = std::move(hook);
  p_->hook_every = every_bytes;
}

const std::vector<writer::layout_entry>& writer::layout() const { return p_->layout; }
uint32_t writer::alignment() const { return p_->alignment; }
uint64_t writer::data_offset() const { return p_->data_offset; }
uint64_t writer::file_size() const { return p_->total; }

void writer::begin_tensor(std::string_view name) {
  impl& w = *p_;
  if (w.finished) w.fail("begin_tensor('" + std::string(name) + "') after finish()");
  if (w.in_tensor)
    w.fail("begin_tensor('" + std::string(name) + "') while tensor '" +
           w.layout[w.next - 1].spec.name + "' is still open");
  if (w.next >= w.layout.size())
    w.fail("begin_tensor('" + std::string(name) + "'): all " + std::to_string(w.layout.size()) +
           " tensors were already written");
  const auto& e = w.layout[w.next];
  if (e.spec.name != name)
    w.fail("begin_tensor('" + std::string(name) + "'): the next tensor in the table is '" +
           e.spec.name + "' (tensors are written in table order)");
  w.pad_to(w.data_offset + e.offset);
  w.in_tensor = true;
  w.tensor_written = 0;
  ++w.next;
}

void writer::write(std::span<const std::byte> bytes) {
  impl& w = *p_;
  if (!w.in_tensor) w.fail("write() outside begin_tensor/end_tensor");
  const auto& e = w.layout[w.next - 1];
  if (bytes.size() > e.nbytes - w.tensor_written)
    w.fail("tensor '" + e.spec.name + "': write of " + std::to_string(bytes.size()) +
           " bytes exceeds its size (" + std::to_string(w.tensor_written) + " of " +
           std::to_string(e.nbytes) + " already written)");
  w.put(bytes.data(), bytes.size());
  w.tensor_written += bytes.size();
  w.since_hook += bytes.size();
  w.report(false);
}

void writer::end_tensor() {
  impl& w = *p_;
  if (!w.in_tensor) w.fail("end_tensor() without begin_tensor()");
  const auto& e = w.layout[w.next - 1];
  if (w.tensor_written != e.nbytes)
    w.fail("tensor '" + e.spec.name + "': " + std::to_string(w.tensor_written) +
           " bytes written, expected " + std::to_string(e.nbytes) + " (" +
           to_string(e.spec.type) + ")");
  w.report(true);
  w.in_tensor = false;
}

void writer::write_tensor(std::string_view name, std::span<const std::byte> bytes) {
  begin_tensor(name);
  write(bytes);
  end_tensor();
}

void writer::write_tensor(std::string_view name, const chunk_producer& produce,
                          std::size_t chunk_bytes) {
  begin_tensor(name);
  const uint64_t n = p_->layout[p_->next - 1].nbytes;
  chunk_bytes = std::max<std::size_t>(chunk_bytes, 1);
  std::vector<std::byte> buf(static_cast<std::size_t>(std::min<uint64_t>(n, chunk_bytes)));
  for (uint64_t at = 0; at < n;) {
    const auto len = static_cast<std::size_t>(std::min<uint64_t>(n - at, buf.size()));
    std::span<std::byte> chunk(buf.data(), len);
    produce(at, chunk);
    write(chunk);
    at += len;
  }
  end_tensor();
}

void writer::finish() {
  impl& w = *p_;
  if (w.finished) return;
  if (w.in_tensor) w.fail("finish() while tensor '" + w.layout[w.next - 1].spec.name + "' is open");
  if (w.next != w.layout.size())
    w.fail("finish() after " + std::to_string(w.next) + " of " + std::to_string(w.layout.size()) +
           " tensors; next missing: '" + w.layout[w.next].spec.name + "'");
  w.pad_to(w.total);
  if (!w.memory) {
    const bool ok = std::fflush(w.out) == 0;
    const int err = errno;
    const bool closed = std::fclose(w.out) == 0;
    w.out = nullptr;
    if (!ok || !closed)
      w.fail("cannot flush/close " + w.partial_path.string() + ": " + std::strerror(err));
    std::error_code ec;
    std::filesystem::rename(w.partial_path, w.final_path, ec);
    if (ec) w.fail("cannot rename " + w.partial_path.string() + ": " + ec.message());
  }
  w.finished = true;
  w.report(true);
}

std::vector<std::byte> writer::to_bytes(std::vector<key_value> metadata,
                                        std::vector<tensor_spec> tensors,
                                        const std::vector<std::vector<std::byte>>& data) {
  if (data.size() != tensors.size())
    throw error("<memory>: " + std::to_string(tensors.size()) + " tensors but " +
                std::to_string(data.size()) + " data buffers");
  std::vector<std::byte> out;
  auto p = std::make_unique<impl>();
  p->name = "<memory>";
  p->memory = &out;
  p->start(std::move(metadata), std::move(tensors));
  writer w(std::move(p));
  for (std::size_t i = 0; i < data.size(); ++i)
    w.write_tensor(w.layout()[i].spec.name, std::span<const std::byte>(data[i]));
  w.finish();
  return out;
}

void write_file(const std::filesystem::path& path, std::vector<key_value> metadata,
                std::vector<tensor_spec> tensors, const std::vector<std::vector<std::byte>>& data) {
  if (data.size() != tensors.size())
    throw error(path.string() + ": " + std::to_string(tensors.size()) + " tensors but " +
                std::to_string(data.size()) + " data buffers");
  writer w(path, std::move(metadata), std::move(tensors));
  for (std::size_t i = 0; i < data.size(); ++i)
    w.write_tensor(w.layout()[i].spec.name, std::span<const std::byte>(data[i]));
  w.finish();
}

}  // namespace ordo::gguf
