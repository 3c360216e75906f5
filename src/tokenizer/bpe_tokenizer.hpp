/// Byte-level BPE tokenizer of DeepSeek V4 Flash (ds4-model.md §9.1): special-token matching,
/// the DeepSeek pre-tokenizer, GPT-2 byte mapping, greedy lowest-rank merging; and decoding.
/// Built from a `vocab` (plain vectors: GGUF metadata or the oracle's tokenizer.json), validated
/// on construction. Encoding is const and thread-safe: its scratch and the per-call pre-token
/// cache live on the caller's stack.
#pragma once
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/merge_table.hpp"
#include "tokenizer/pre_tokenizer.hpp"
#include "tokenizer/vocab.hpp"

namespace ordo::tokenizer {

/// Thrown for an inconsistent vocabulary or an id out of range; the message names the token,
/// merge or id at fault.
struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Whether the text of control / user-defined tokens (e.g. "<｜User｜>") found in the input
/// becomes that token (`parse`, as HF tokenizers do) or is tokenized as ordinary text (`plain`:
/// what user-supplied content must get so it cannot forge prompt structure).
enum class special_tokens { parse, plain };

/// Whether decoding writes control tokens' text (`render`) or drops them (`skip`).
enum class decode_specials { render, skip };

class bpe_tokenizer {
 public:
  /// `ws` picks the regex engine semantics of \s (see regex_whitespace): unicode matches HF
  /// tokenizers (Rust) and llama.cpp, ecmascript the JS oracle, id for id.
  explicit bpe_tokenizer(vocab v, regex_whitespace ws = regex_whitespace::unicode);
  // Lookups hold views into the owned token strings: moving keeps them valid, copying would not.
  bpe_tokenizer(bpe_tokenizer&&) = default;
  bpe_tokenizer& operator=(bpe_tokenizer&&) = default;
  bpe_tokenizer(const bpe_tokenizer&) = delete;
  bpe_tokenizer& operator=(const bpe_tokenizer&) = delete;

  /// Token ids of `text` (no BOS is added: callers that want one push bos_id() first).
  std::vector<int32_t> encode(std::string_view text, special_tokens mode) const;
  /// Appends the ids of `text` to `out`.
  void encode(std::string_view text, special_tokens mode, std::vector<int32_t>& out) const;

  /// Bytes of the ids concatenated (may be invalid UTF-8 when a multi-byte character is split).
  std::string decode(std::span<const int32_t> ids, decode_specials mode = decode_specials::render) const;
  /// Bytes of one token (a control token's text for control tokens).
  const std::string& token_bytes(int32_t id) const;

  /// Id of the token whose vocabulary text is exactly `text`, or -1.
  int32_t find(std::string_view text) const;
  /// Id of `text`; throws `error` naming it when the vocabulary lacks it.
  int32_t id_of(std::string_view text) const;

  std::size_t size() const { return vocab_.tokens.size(); }
  token_type type(int32_t id) const { return vocab_.types.at(std::size_t(id)); }
  const std::string& token_text(int32_t id) const { return vocab_.tokens.at(std::size_t(id)); }
  int32_t bos_id() const { return vocab_.bos_id; }
  int32_t eos_id() const { return vocab_.eos_id; }
  const vocab& vocabulary() const { return vocab_; }

 private:
  struct trie_node {
    std::vector<std::pair<unsigned char, int32_t>> children;  // sorted by byte
    int32_t token = -1;                                        // id ending here
  };
  struct workspace;

  void encode_plain(std::string_view text, std::vector<int32_t>& out, workspace& ws) const;
  /// Length and id of the longest special token starting at `text[0]` (length 0: none).
  std::pair<std::size_t, int32_t> match_special(std::string_view text) const;

  vocab vocab_;
  regex_whitespace whitespace_;
  std::unordered_map<std::string_view, int32_t> ids_;  // views into vocab_.tokens
  merge_table merges_;
  int32_t byte_ids_[256];
  std::vector<std::string> bytes_;  // decoded bytes of every token
  std::vector<trie_node> trie_;     // special tokens; node 0 is the root
  bool special_first_byte_[256] = {};
};

}  // namespace ordo::tokenizer
