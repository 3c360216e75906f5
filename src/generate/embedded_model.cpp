// The files come from CMake (src/generate/CMakeLists.txt) as ORDO_TINY_MAIN_GGUF / ORDO_TINY_MTP_GGUF
// with their SHA-256; OBJECT_DEPENDS rebuilds this object when they change.
#include "generate/embedded_model.hpp"

// Each blob is 64-byte aligned (GGUF readers mmap-align tensor data to general.alignment = 32).
asm(".pushsection .rodata\n"
    ".balign 64\n"
    "ordo_tiny_main_begin:\n"
    ".incbin \"" ORDO_TINY_MAIN_GGUF "\"\n"
    "ordo_tiny_main_end:\n"
    ".balign 64\n"
    "ordo_tiny_mtp_begin:\n"
    ".incbin \"" ORDO_TINY_MTP_GGUF "\"\n"
    "ordo_tiny_mtp_end:\n"
    ".popsection\n"
    ".pushsection .data.rel.ro\n"
    ".balign 8\n"
    "ordo_tiny_blobs:\n"
    ".quad ordo_tiny_main_begin, ordo_tiny_main_end, ordo_tiny_mtp_begin, ordo_tiny_mtp_end\n"
    ".popsection\n");

// The assembler's local labels are reached through one relocated table (begin, end of each blob),
// so nothing is exported and no code model is assumed.
extern "C" const std::byte* const ordo_tiny_blobs[4] __asm__("ordo_tiny_blobs");

namespace ordo::generate {

namespace {
std::span<const std::byte> blob(int i) {
  return {ordo_tiny_blobs[2 * i], static_cast<std::size_t>(ordo_tiny_blobs[2 * i + 1] - ordo_tiny_blobs[2 * i])};
}
}  // namespace

std::span<const std::byte> embedded_main_model() { return blob(0); }
std::span<const std::byte> embedded_mtp_model() { return blob(1); }
std::string_view embedded_main_sha256() { return ORDO_TINY_MAIN_SHA256; }
std::string_view embedded_mtp_sha256() { return ORDO_TINY_MTP_SHA256; }

}  // namespace ordo::generate
