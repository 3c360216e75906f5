// The report of `ordo inspect`.
#include "inspect/inspect.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "inspect/checks.hpp"

namespace ordo::inspect {
namespace {

std::string shape_text(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string human_bytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double x = double(b);
  int u = 0;
  while (x >= 1024 && u < 4) x /= 1024, ++u;
  return u == 0 ? fmt::format("{} B", b) : fmt::format("{:.2f} {}", x, units[u]);
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(uint8_t(c)); });
}

}  // namespace

std::string class_pattern(const std::string& name) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = name.find('.', start);
    const std::string_view part(name.data() + start,
                                (dot == std::string::npos ? name.size() : dot) - start);
    out += all_digits(part) ? std::string_view("*") : part;
    if (dot == std::string::npos) break;
    out += '.';
    start = dot + 1;
  }
  return out;
}

std::vector<tensor_class> tensor_classes(const gguf::file& f) {
  std::map<std::string, tensor_class> by;
  for (const auto& t : f.tensors()) {
    const std::string p = class_pattern(t.name);
    auto& c = by[p];
    c.pattern = p;
    ++c.count;
    c.bytes += t.nbytes;
    if (std::find(c.types.begin(), c.types.end(), t.type) == c.types.end()) c.types.push_back(t.type);
  }
  std::vector<tensor_class> out;
  for (auto& [_, c] : by) out.push_back(std::move(c));
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  return out;
}

bool glob_match(std::string_view glob, std::string_view name) {
  // Iterative matcher with one backtrack point (the last `*`): linear in practice, no recursion.
  std::size_t g = 0, n = 0, star = std::string_view::npos, star_n = 0;
  while (n < name.size()) {
    if (g < glob.size() && (glob[g] == '?' || glob[g] == name[n])) {
      ++g, ++n;
    } else if (g < glob.size() && glob[g] == '*') {
      star = g++, star_n = n;
    } else if (star != std::string_view::npos) {
      g = star + 1, n = ++star_n;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

tensor_class glob_group(const gguf::file& f, const std::string& glob) {
  tensor_class c;
  c.pattern = glob;
  for (const auto& t : f.tensors()) {
    if (!glob_match(glob, t.name)) continue;
    ++c.count;
    c.bytes += t.nbytes;
    if (std::find(c.types.begin(), c.types.end(), t.type) == c.types.end()) c.types.push_back(t.type);
  }
  return c;
}

int run(const std::filesystem::path& path, const options& opt, std::FILE* out, std::FILE* err) {
  std::optional<gguf::file> opened;
  try {
    opened.emplace(gguf::file::open(path));
  } catch (const gguf::error& e) {
    fmt::print(err, "ordo inspect: {}: invalid GGUF: {}\n", path.string(), e.what());
    return 1;
  }
  const gguf::file& f = *opened;
  uint64_t tensor_bytes = 0;
  for (const auto& t : f.tensors()) tensor_bytes += t.nbytes;

  fmt::print(out, "file        {}\n", f.name());
  fmt::print(out, "size        {} ({})\n", f.bytes().size(), human_bytes(f.bytes().size()));
  fmt::print(out, "gguf        version {}, alignment {}, data at offset {}\n", f.version(),
             f.alignment(), f.data_offset());
  fmt::print(out, "contents    {} metadata keys, {} tensors, {} of tensor data\n",
             f.metadata().size(), f.tensors().size(), human_bytes(tensor_bytes));

  if (opt.show_metadata) {
    fmt::print(out, "\nmetadata\n");
    std::size_t w = 0;
    for (const auto& kv : f.metadata()) w = std::max(w, kv.key.size());
    for (const auto& kv : f.metadata()) {
      const std::string type = kv.val.is_array() ? "array" : gguf::to_string(kv.val.type());
      fmt::print(out, "  {:<{}}  {:<6}  {}\n", kv.key, w, type, kv.val.render(opt.max_array_items));
    }
  }

  if (opt.show_tensors) {
    fmt::print(out, "\ntensors\n");
    std::size_t w = 4;
    for (const auto& t : f.tensors()) w = std::max(w, t.name.size());
    fmt::print(out, "  {:<{}}  {:<8}  {:<24}  {:>14}  {:>14}\n", "name", w, "type", "shape", "bytes",
               "offset");
    for (const auto& t : f.tensors())
      fmt::print(out, "  {:<{}}  {:<8}  {:<24}  {:>14}  {:>14}\n", t.name, w, gguf::to_string(t.type),
                 shape_text(t.dims), t.nbytes, t.offset);
  }

  fmt::print(out, "\nbytes per tensor class\n");
  auto classes = tensor_classes(f);
  std::size_t n_auto = classes.size();
  for (const auto& g : opt.groups) classes.push_back(glob_group(f, g));
  std::size_t w = 7;
  for (const auto& c : classes) w = std::max(w, c.pattern.size());
  fmt::print(out, "  {:<{}}  {:>6}  {:<16}  {:>12}  {:>6}\n", "pattern", w, "count", "types", "size",
             "share");
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const auto& c = classes[i];
    if (i == n_auto) fmt::print(out, "  groups asked for:\n");
    std::string types;
    for (auto t : c.types) types += (types.empty() ? "" : ",") + gguf::to_string(t);
    const double share = tensor_bytes ? 100.0 * double(c.bytes) / double(tensor_bytes) : 0.0;
    fmt::print(out, "  {:<{}}  {:>6}  {:<16}  {:>12}  {:>5.1f}%\n", c.pattern, w, c.count, types,
               human_bytes(c.bytes), share);
  }

  fmt::print(out, "\nvalidation\n");
  fmt::print(out, "  {:<8} ok  (container, metadata and tensor table: validated on open)\n", "gguf");
  bool all_ok = true;
  for (const auto& c : checks()) {
    check_result r;
    try {
      r = c.run(f);
    } catch (const std::exception& e) {
      r.problems.push_back(std::string("check threw: ") + e.what());
    }
    all_ok = all_ok && r.ok();
    fmt::print(out, "  {:<8} {}  ({})\n", c.name, r.ok() ? "ok" : "FAILED", c.summary);
    for (const auto& p : r.problems) fmt::print(out, "           problem: {}\n", p);
    for (const auto& n : r.notes) fmt::print(out, "           note: {}\n", n);
  }
  fmt::print(out, "\nresult      {}\n", all_ok ? "valid" : "INVALID");
  if (!all_ok) fmt::print(err, "ordo inspect: {}: failed validation (see the report above)\n", f.name());
  return all_ok ? 0 : 1;
}

}  // namespace ordo::inspect
