#include "convert/run.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ostream>
#include <exception>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "convert/encode_rows.hpp"
#include "convert/fp4_mxfp4.hpp"
#include "convert/fp8_blocks.hpp"
#include "ordo/model/gguf_writer.hpp"
#include "ordo/numeric/conversions.hpp"

namespace ordo::convert {

namespace {

using gguf::ggml_type;

// Rows are decoded to float in chunks of about this many elements (64 MB of floats).
constexpr std::int64_t kChunkElems = std::int64_t{16} << 20;

// Runs fn(r0, r1) over disjoint row ranges of [0, rows) on up to 8 threads. Every row (and every
// quant block) is encoded independently, so the bytes do not depend on the split; small chunks
// stay on the calling thread.
template <class Fn>
void parallel_rows(std::int64_t rows, std::int64_t cols, const Fn& fn) {
  const auto hw = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  const std::int64_t n = std::min<std::int64_t>({hw, 8, rows, std::max<std::int64_t>(1, rows * cols / (1 << 16))});
  if (n <= 1) {
    fn(std::int64_t{0}, rows);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  for (std::int64_t t = 0; t < n; ++t)
    pool.emplace_back([&, t] {
      try {
        fn(rows * t / n, rows * (t + 1) / n);
      } catch (...) {
        errors[static_cast<std::size_t>(t)] = std::current_exception();
      }
    });
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

std::vector<float> decode_scales(const checkpoint& ck, const st_tensor& s) {
  const auto bytes = ck.read_all(s);
  std::vector<float> out(static_cast<std::size_t>(s.numel()));
  if (s.dtype == st_dtype::f32) {
    std::memcpy(out.data(), bytes.data(), bytes.size());
  } else {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = numeric::e8m0_to_f32(static_cast<std::uint8_t>(bytes[i]));
  }
  return out;
}

void widen_to_float(st_dtype d, const std::byte* in, std::int64_t n, float* out) {
  switch (d) {
    case st_dtype::f32: std::memcpy(out, in, static_cast<std::size_t>(n) * 4); return;
    case st_dtype::f16:
      for (std::int64_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, in + 2 * i, 2);
        out[i] = numeric::f16_to_f32(h);
      }
      return;
    case st_dtype::bf16:
      for (std::int64_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, in + 2 * i, 2);
        out[i] = numeric::bf16_to_f32(h);
      }
      return;
    case st_dtype::f64:
      for (std::int64_t i = 0; i < n; ++i) {
        double v;
        std::memcpy(&v, in + 8 * i, 8);
        out[i] = static_cast<float>(v);
      }
      return;
    default: break;
  }
  throw std::logic_error("widen_to_float: not a float dtype");
}

class tensor_streamer {
 public:
  tensor_streamer(const checkpoint& ck, gguf::writer& w, const planned_tensor& p, std::int64_t n_expert)
      : ck_(ck), w_(w), p_(p), n_expert_(n_expert) {}

  void run() {
    w_.begin_tensor(p_.name);
    for (const auto& part : p_.parts) stream_part(part);
    w_.end_tensor();
  }

 private:
  std::string where(const st_tensor& t) const {
    return fmt::format("{}: tensor '{}' → '{}'", ck_.files()[t.file_index].string(), t.name, p_.name);
  }

  void stream_part(const source_part& part) {
    const std::int64_t cols = part.cols;
    const std::int64_t chunk_rows = std::max<std::int64_t>(1, kChunkElems / std::max<std::int64_t>(cols, 1));
    std::vector<float> scales;
    if (part.kind == source_kind::fp8_blocks) scales = decode_scales(ck_, *part.scale);
    for (std::int64_t r0 = 0; r0 < part.rows; r0 += chunk_rows) {
      const std::int64_t rows = std::min(chunk_rows, part.rows - r0);
      const std::int64_t row = part.first_row + r0;  // in the source's 2-D view
      out_.resize(static_cast<std::size_t>(rows) * encoded_row_bytes(p_.type, cols));
      switch (part.kind) {
        case source_kind::float_rows: {
          const std::size_t es = st_dtype_size(part.tensor->dtype);
          raw_.resize(static_cast<std::size_t>(rows * cols) * es);
          ck_.read(*part.tensor, static_cast<std::uint64_t>(row * cols) * es, raw_);
          floats_.resize(static_cast<std::size_t>(rows * cols));
          const std::size_t rb = encoded_row_bytes(p_.type, cols);
          parallel_rows(rows, cols, [&](std::int64_t r0, std::int64_t r1) {
            widen_to_float(part.tensor->dtype, raw_.data() + r0 * cols * es, (r1 - r0) * cols, floats_.data() + r0 * cols);
            encode_float_rows(p_.type, floats_.data() + r0 * cols, r1 - r0, cols, out_.data() + r0 * rb);
          });
          break;
        }
        case source_kind::fp8_blocks: {
          raw_.resize(static_cast<std::size_t>(rows * cols));
          ck_.read(*part.tensor, static_cast<std::uint64_t>(row * cols), raw_);
          floats_.resize(static_cast<std::size_t>(rows * cols));
          const std::span<const std::uint8_t> codes(reinterpret_cast<const std::uint8_t*>(raw_.data()), raw_.size());
          const std::size_t rb = encoded_row_bytes(p_.type, cols);
          parallel_rows(rows, cols, [&](std::int64_t r0, std::int64_t r1) {
            dequant_fp8_rows(codes.subspan(static_cast<std::size_t>(r0 * cols)), row + r0, r1 - r0, cols, scales,
                             (cols + fp8_block - 1) / fp8_block, floats_.data() + r0 * cols);
            encode_float_rows(p_.type, floats_.data() + r0 * cols, r1 - r0, cols, out_.data() + r0 * rb);
          });
          break;
        }
        case source_kind::fp4_packed: stream_fp4(part, row, rows); break;
        case source_kind::int_table: stream_ints(part, row, rows); break;
      }
      w_.write(out_);
    }
  }

  void stream_fp4(const source_part& part, std::int64_t row, std::int64_t rows) {
    const std::int64_t cols = part.cols;
    raw_.resize(static_cast<std::size_t>(rows * cols / 2));
    ck_.read(*part.tensor, static_cast<std::uint64_t>(row * cols / 2), raw_);
    scale_raw_.resize(static_cast<std::size_t>(rows * cols / fp4_block));
    ck_.read(*part.scale, static_cast<std::uint64_t>(row * cols / fp4_block), scale_raw_);
    const auto* packed = reinterpret_cast<const std::uint8_t*>(raw_.data());
    const auto* sc = reinterpret_cast<const std::uint8_t*>(scale_raw_.data());
    for (std::size_t i = 0; i < scale_raw_.size(); ++i)
      if (sc[i] == 0xffu)
        // E8M0 0xff is NaN; MXFP4 would read it as the finite 2^127, so the repack would not be
        // value-preserving. No real checkpoint has it: refuse rather than invent a value.
        throw std::runtime_error(fmt::format("{}: scale byte 0xff (E8M0 NaN) at row {}", where(*part.scale),
                                             row + static_cast<std::int64_t>(i) / (cols / fp4_block)));
    if (p_.type == ggml_type::mxfp4) {
      auto* blocks = reinterpret_cast<quant::mxfp4::block*>(out_.data());
      for (std::int64_t r = 0; r < rows; ++r)
        repack_fp4_row_to_mxfp4(packed + r * cols / 2, sc + r * cols / fp4_block, cols,
                                blocks + r * cols / fp4_block);
      return;
    }
    floats_.resize(static_cast<std::size_t>(rows * cols));
    const std::size_t rb = encoded_row_bytes(p_.type, cols);
    parallel_rows(rows, cols, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r)
        dequant_fp4_row(packed + r * cols / 2, sc + r * cols / fp4_block, cols, floats_.data() + r * cols);
      encode_float_rows(p_.type, floats_.data() + r0 * cols, r1 - r0, cols, out_.data() + r0 * rb);
    });
  }

  void stream_ints(const source_part& part, std::int64_t row, std::int64_t rows) {
    const std::int64_t n = rows * part.cols;
    const std::size_t es = st_dtype_size(part.tensor->dtype);
    raw_.resize(static_cast<std::size_t>(n) * es);
    ck_.read(*part.tensor, static_cast<std::uint64_t>(row * part.cols) * es, raw_);
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t v;
      if (es == 8) {
        std::memcpy(&v, raw_.data() + 8 * i, 8);
      } else {
        std::int32_t v32;
        std::memcpy(&v32, raw_.data() + 4 * i, 4);
        v = v32;
      }
      // tid2eid holds expert ids; anything outside [0, n_expert) would index out of bounds later.
      if (v < 0 || v >= n_expert_)
        throw std::runtime_error(fmt::format("{}: entry {} is {}, not an expert id in [0, {})", where(*part.tensor),
                                             row * part.cols + i, v, n_expert_));
      const auto v32 = static_cast<std::int32_t>(v);
      std::memcpy(out_.data() + 4 * i, &v32, 4);
    }
  }

  const checkpoint& ck_;
  gguf::writer& w_;
  const planned_tensor& p_;
  std::int64_t n_expert_;
  std::vector<std::byte> raw_, scale_raw_, out_;
  std::vector<float> floats_;
};

std::string source_summary(const planned_tensor& p) {
  const auto& first = *p.parts.front().tensor;
  std::string s = fmt::format("{} {}", first.name, st_dtype_name(first.dtype));
  if (p.parts.size() > 1) {
    bool same = std::all_of(p.parts.begin(), p.parts.end(), [&](const source_part& x) { return x.tensor == &first; });
    s += same ? fmt::format(" (rows of {} experts)", p.parts.size()) : fmt::format(" (+{} more experts)", p.parts.size() - 1);
  }
  if (p.parts.front().kind == source_kind::fp8_blocks) s += " + 128x128 E8M0 scales";
  if (p.parts.front().kind == source_kind::fp4_packed) s += p.type == ggml_type::mxfp4 ? " FP4, repacked" : " FP4";
  return s;
}

}  // namespace

void print_plan(const conversion_plan& plan, std::ostream& os) {
  for (const auto* list : {&plan.tensors, &plan.mtp_tensors})
    for (const auto& t : *list)
      os << fmt::format("{:<40} {:<6} [{}] <- {}\n", t.name, gguf::to_string(t.type), fmt::join(t.dims, ", "),
                        source_summary(t));
}

namespace {

void write_gguf(const checkpoint& ck, const std::vector<gguf::key_value>& metadata,
                const std::vector<planned_tensor>& tensors, std::int64_t n_expert, const std::filesystem::path& out,
                std::ostream* log) {
  std::vector<gguf::tensor_spec> specs;
  for (const auto& t : tensors) specs.push_back({t.name, t.type, t.dims});
  gguf::writer w(out, metadata, std::move(specs));
  const auto start = std::chrono::steady_clock::now();
  const uint64_t total = w.file_size();
  if (log != nullptr)
    // Between the per-tensor lines, a line per GB written, so a long expert tensor shows progress
    // (plain lines: the log may be a file, not a terminal).
    w.on_progress(
        [log, total](const gguf::write_progress& p) {
          if (p.tensor_index < p.tensor_count && !p.tensor_name.empty())
            *log << fmt::format("       {:.1f} of {:.1f} GB written\n", p.bytes_written / 1e9, total / 1e9) << std::flush;
        },
        std::uint64_t{1} << 30);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    if (log != nullptr)
      *log << fmt::format("[{:>4}/{}] {} {} [{}] <- {}\n", i + 1, tensors.size(), t.name, gguf::to_string(t.type),
                          fmt::join(t.dims, ", "), source_summary(t))
           << std::flush;
    tensor_streamer(ck, w, t, n_expert).run();
  }
  w.finish();
  if (log != nullptr) {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    *log << fmt::format("wrote {} ({} tensors, {:.2f} GB) in {:.1f} s\n", out.string(), tensors.size(), total / 1e9,
                        secs);
  }
}

}  // namespace

void run_conversion(const checkpoint& ck, const conversion_plan& plan, const std::filesystem::path& out,
                    std::ostream* log, const std::optional<std::filesystem::path>& mtp_out) {
  write_gguf(ck, plan.metadata, plan.tensors, plan.hp.n_expert, out, log);
  if (!plan.mtp_tensors.empty()) {
    if (!mtp_out) throw std::logic_error("run_conversion: an MTP sidecar was planned without a path");
    write_gguf(ck, plan.mtp_metadata, plan.mtp_tensors, plan.hp.n_expert, *mtp_out, log);
  }
}

void convert_checkpoint(const convert_request& req, std::ostream* log, std::ostream* plan_out) {
  const auto ck = checkpoint::open(req.source);
  const auto config = req.config.value_or(ck.directory() / "config.json");
  const auto hp = read_hf_config(config);
  auto options = req.options;
  options.mtp = req.mtp_output.has_value();
  auto plan = plan_conversion(ck, hp, options);
  if (log != nullptr)
    for (const auto& n : plan.notes) *log << "note: " << n << "\n";
  if (plan_out != nullptr) print_plan(plan, *plan_out);
  if (!req.dry_run) run_conversion(ck, plan, req.output, log, req.mtp_output);
}

}  // namespace ordo::convert
