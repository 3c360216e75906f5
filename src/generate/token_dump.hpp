/// `--dump-tokens FILE`: antirez/ds4's token dump (ds4.c dump_tokens_fp), written to a file:
/// first line the ids as a list, "[0, 1234, 56]", then one line per token, the id right-aligned
/// in six columns, two spaces and the token's vocabulary text (GPT-2 byte-mapped, "Ġthe"), raw:
///       0  <｜begin▁of▁sentence｜>
///    1234  Ġthe
/// ds4 dumps the prompt and exits before inference; ordo writes the whole sequence it ran
/// (prompt, chat template included, then the generated tokens), so the list round-trips through
/// `ordo eval --prompt-ids` (which takes the first line with its brackets).
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "tokenizer/bpe_tokenizer.hpp"

namespace ordo::generate {

/// Writes the dump; throws std::runtime_error naming the path on an I/O failure.
void write_token_dump(const std::filesystem::path& path, const tokenizer::bpe_tokenizer& tok,
                      std::span<const int32_t> tokens);

/// The ids of a dump's first line; throws std::runtime_error naming the path when it is not one.
std::vector<int32_t> read_token_dump(const std::filesystem::path& path);

}  // namespace ordo::generate
