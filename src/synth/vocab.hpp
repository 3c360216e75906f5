/// The tokenizer section of synthetic models: DS4's real vocabulary (from the oracle's
/// tokenizer.json through src/tokenizer) or the byte vocabulary padded to the model's size.
#pragma once
#include <cstdint>
#include <filesystem>
#include <vector>

#include "ordo/model/gguf.hpp"
#include "synth/synth.hpp"
#include "tokenizer/vocab.hpp"

namespace ordo::synth {

/// bytes: 256 byte tokens + DS4's prompt tokens, padded with unused entries to `n_vocab`;
/// deepseek: the 129,280-entry DS4 vocabulary (then `n_vocab` must be that or the preset's).
tokenizer::vocab make_vocab(vocab_kind kind, const std::filesystem::path& tokenizer_json, uint32_t n_vocab);

/// The `tokenizer.ggml.*` metadata of `v`.
std::vector<gguf::key_value> vocab_metadata(const tokenizer::vocab& v);

}  // namespace ordo::synth
