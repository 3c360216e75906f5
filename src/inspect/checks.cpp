// The check list of `ordo inspect`, and the built-in layout check.
#include "inspect/checks.hpp"

#include <algorithm>
#include <numeric>

namespace ordo::inspect {

const std::vector<check>& checks() {
  static const std::vector<check> list{
      {"layout", "tensor data section: order, gaps, trailing bytes", &check_layout},
      {"ds4", "DeepSeek V4 Flash model: hyperparameters and every tensor of the tensor map", &check_ds4_model},
  };
  return list;
}

check_result check_layout(const gguf::file& f) {
  check_result r;
  const auto& ts = f.tensors();
  std::vector<std::size_t> order(ts.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ts[a].offset < ts[b].offset; });
  if (!std::is_sorted(order.begin(), order.end()))
    r.notes.push_back("tensor data is not in table order");
  uint64_t gap_bytes = 0, end = 0;
  for (std::size_t i : order) {
    // Padding to the alignment is expected; anything beyond it is unused space.
    const uint64_t padded_end = (end + f.alignment() - 1) / f.alignment() * f.alignment();
    if (ts[i].offset > padded_end) gap_bytes += ts[i].offset - padded_end;
    end = std::max(end, ts[i].offset + ts[i].nbytes);
  }
  if (gap_bytes) r.notes.push_back(std::to_string(gap_bytes) + " unused bytes between tensors");
  if (!ts.empty()) {
    const uint64_t data_end = f.data_offset() + end;
    const uint64_t trailing = f.bytes().size() - data_end;
    if (trailing >= f.alignment())
      r.notes.push_back(std::to_string(trailing) + " bytes after the last tensor");
  }
  return r;
}

}  // namespace ordo::inspect
