/// The default model compiled into the binary: ordo's tiny trained DS4-architecture model
/// (models/tiny-ds4/: 4 layers 0/0/4/128, hash and top-k routing, byte vocabulary) and its MTP
/// sidecar, included by the assembler (.incbin) so a GGUF of a few MB costs no compile time.
/// `ordo generate` without -m writes these bytes to the cache once and reads them from there.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace ordo::generate {

/// The main GGUF (ds4 naming) and the ds4 MTP sidecar GGUF (mtp.0.*), byte for byte as committed.
std::span<const std::byte> embedded_main_model();
std::span<const std::byte> embedded_mtp_model();

/// SHA-256 (hex) of the two files at configure time; part of the compiled text so that a changed
/// model changes this translation unit's hash (ccache cannot see .incbin's input).
std::string_view embedded_main_sha256();
std::string_view embedded_mtp_sha256();

}  // namespace ordo::generate
