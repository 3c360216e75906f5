/// GGUF ↔ vocabulary: reads the `tokenizer.ggml.*` metadata of a model file into a `vocab`, and
/// produces those metadata entries from a `vocab` (what `ordo synth` writes into tiny models).
#pragma once
#include <filesystem>
#include <vector>

#include "ordo/model/gguf.hpp"
#include "tokenizer/bpe_tokenizer.hpp"
#include "tokenizer/vocab.hpp"

namespace ordo::tokenizer {

/// Reads tokenizer.ggml.{model, pre, tokens, merges, token_type, bos_token_id, eos_token_id,
/// padding_token_id, add_bos_token}. Throws naming the file and key when one is missing or wrong.
vocab vocab_from_gguf(const gguf::file& f);

/// The metadata entries for `v`, in the order llama.cpp's converter writes them.
std::vector<gguf::key_value> gguf_metadata(const vocab& v);

/// A tokenizer from a model GGUF, or from a HF tokenizer.json when `path` ends in ".json".
bpe_tokenizer load_tokenizer(const std::filesystem::path& path, regex_whitespace ws = regex_whitespace::unicode);

}  // namespace ordo::tokenizer
