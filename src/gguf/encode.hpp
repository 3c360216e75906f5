/// Serialisation of the GGUF header (magic, counts, metadata, tensor table) for the writer, and
/// the checks that keep the writer from producing a file the reader would reject.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ordo/model/gguf_writer.hpp"

namespace ordo::gguf::detail {

/// Throws gguf::error ("<name>: ...") if the metadata or table would make an invalid file.
/// Returns the alignment (`general.alignment` or the default).
uint32_t validate_for_write(const std::string& name, const std::vector<key_value>& metadata,
                            const std::vector<tensor_spec>& tensors);

/// Offsets (packed in table order, each aligned) and sizes of the tensors.
std::vector<writer::layout_entry> plan_layout(std::vector<tensor_spec> tensors, uint32_t alignment);

/// The header bytes, without the padding up to the data section.
std::vector<std::byte> encode_header(const std::vector<key_value>& metadata,
                                     const std::vector<writer::layout_entry>& layout);

inline uint64_t align_up(uint64_t x, uint64_t alignment) {
  return x + (alignment - x % alignment) % alignment;
}

}  // namespace ordo::gguf::detail
