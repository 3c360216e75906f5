/// Vocabularies built without a GGUF file: from a HF tokenizer.json (the oracle's, for tests and
/// for `ordo synth --vocab deepseek`), and the minimal byte vocabulary of tiny test models.
/// Token types follow llama.cpp's converter (convert_hf_to_gguf.py `get_vocab_base`): added
/// tokens that are special or look special ("<｜…｜>", "<|…|>") are control, other added tokens
/// user-defined, ids the JSON does not define become "[PAD<id>]" unused entries.
#pragma once
#include <filesystem>

#include "tokenizer/vocab.hpp"

namespace ordo::tokenizer {

/// Exactly the tokenizer.json's vocabulary (model.vocab + added_tokens, ids as given), its merges,
/// and BOS/EOS from a tokenizer_config.json beside it when present (else ids 0 and 1).
/// Throws `error` naming the file and the field at fault.
vocab vocab_from_tokenizer_json(const std::filesystem::path& tokenizer_json);

/// DS4 Flash's vocabulary from the DeepSeek-V3 tokenizer.json: that vocabulary, plus `<think>`
/// (128798) and `</think>` (128799) in the placeholder slots DeepSeek V3.1+ gave them, plus
/// `｜DSML｜` at 128794 (an ordo choice: its real id is not in our sources; engines look it up by
/// string), padded with "[PAD<id>]" unused entries to 129,280. gpt2 / joyai-llm, BOS 0, EOS 1.
vocab deepseek_vocab_from_tokenizer_json(const std::filesystem::path& tokenizer_json);
/// The same from an already loaded DeepSeek-V3 vocabulary (`source` names it in errors).
vocab deepseek_vocab_from(vocab v3, const std::string& source);

/// The minimal vocabulary for tiny models: ids 0..255 the byte tokens (in byte order), then the
/// seven DS4 prompt tokens as control tokens (BOS 256, EOS 257, <｜User｜>, <｜Assistant｜>,
/// <think>, </think>, ｜DSML｜), no merges.
vocab byte_vocab();

/// Appends "[PAD<id>]" unused entries until `v` has `size` tokens (no-op if it has as many).
void pad_vocab(vocab& v, std::size_t size);

}  // namespace ordo::tokenizer
