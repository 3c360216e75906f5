/// A byte-level BPE vocabulary as GGUF stores it (ds4-model.md §8.3): token strings indexed by id,
/// merges "left right" whose rank is their index, one token type per id, and the BOS/EOS ids.
/// Plain vectors, so the tokenizer can be built from a GGUF file, from the oracle's
/// tokenizer.json, or from a hand-made test vocabulary alike.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ordo::tokenizer {

/// GGUF `tokenizer.ggml.token_type` values (llama.cpp's llama_token_type).
enum class token_type : int32_t {
  undefined = 0,
  normal = 1,        // byte-level BPE piece: its text is GPT-2 byte-mapped
  unknown = 2,
  control = 3,       // special token (BOS, role markers): raw text, matched in text when allowed
  user_defined = 4,  // added token that is not special: raw text, matched like control tokens
  unused = 5,        // padding entries such as "[PAD128815]"
  byte = 6,          // SentencePiece byte fallback "<0xAB>" (not used by gpt2 vocabularies)
};

/// The GGUF tokenizer section of a byte-level BPE model.
struct vocab {
  std::string model = "gpt2";       // tokenizer.ggml.model
  std::string pre = "joyai-llm";    // tokenizer.ggml.pre (the DeepSeek-V3 regex set)
  std::vector<std::string> tokens;  // tokenizer.ggml.tokens, index = id
  std::vector<std::string> merges;  // tokenizer.ggml.merges, "left right", index = rank
  std::vector<token_type> types;    // tokenizer.ggml.token_type, same length as tokens
  int32_t bos_id = -1;              // tokenizer.ggml.bos_token_id (-1: none)
  int32_t eos_id = -1;              // tokenizer.ggml.eos_token_id
  int32_t pad_id = -1;              // tokenizer.ggml.padding_token_id
  bool add_bos = true;              // tokenizer.ggml.add_bos_token

  /// Id of the token whose text is exactly `text`, or -1 (linear scan: for set-up, not loops).
  int32_t find(const std::string& text) const;
};

/// Token types as the int32 array GGUF stores.
std::vector<int32_t> to_int32(const std::vector<token_type>& types);

}  // namespace ordo::tokenizer
