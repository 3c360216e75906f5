#include "tokenizer/bpe_tokenizer.hpp"

#include <algorithm>

#include "tokenizer/bpe_merge.hpp"
#include "tokenizer/byte_level.hpp"
#include "tokenizer/piece_cache.hpp"
#include "tokenizer/pre_tokenizer.hpp"

namespace ordo::tokenizer {
namespace {

bool is_special(token_type t) { return t == token_type::control || t == token_type::user_defined; }

/// "<0xAB>" → 0xAB (SentencePiece byte tokens); -1 otherwise.
int byte_token_value(std::string_view s) {
  auto hex = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  if (s.size() != 6 || s.substr(0, 3) != "<0x" || s[5] != '>' || hex(s[3]) < 0 || hex(s[4]) < 0) return -1;
  return hex(s[3]) * 16 + hex(s[4]);
}

}  // namespace

/// Per-call state: pre-tokenizer scratch, BPE scratch and the pre-token cache. English prose
/// repeats its words constantly, so caching the ids of short pieces for the duration of one call
/// skips most BPE work; keys are views into the caller's text, which outlives the call. Long
/// texts are pre-tokenized in chunks cut where the split provably does not change
/// (next_safe_cut), so the per-code-point scratch stays small.
struct bpe_tokenizer::workspace {
  pre_tokenizer_scratch pre;
  std::vector<std::string_view> pieces;
  std::vector<int32_t> symbols;
  bpe_scratch bpe;
  piece_cache cache;
};

bpe_tokenizer::bpe_tokenizer(vocab v, regex_whitespace ws)
    : vocab_(std::move(v)), whitespace_(ws), merges_(vocab_.merges.size()) {
  const auto& t = vocab_.tokens;
  if (vocab_.model != "gpt2")
    throw error("tokenizer: tokenizer.ggml.model is '" + vocab_.model + "', only 'gpt2' (byte-level BPE) is supported");
  // llama.cpp runs the DeepSeek-V3 regex set for these names; any other pre-tokenizer would
  // silently give other tokens, so refuse it.
  static constexpr std::string_view deepseek_pre[] = {"joyai-llm", "deepseek-v3", "hunyuan-dense", "hy_v4"};
  if (std::find(std::begin(deepseek_pre), std::end(deepseek_pre), vocab_.pre) == std::end(deepseek_pre))
    throw error("tokenizer: tokenizer.ggml.pre is '" + vocab_.pre +
                "'; only the DeepSeek-V3 pre-tokenizer is implemented ('joyai-llm', 'deepseek-v3')");
  if (t.empty()) throw error("tokenizer: tokenizer.ggml.tokens is empty");
  if (vocab_.types.empty()) vocab_.types.assign(t.size(), token_type::normal);
  if (vocab_.types.size() != t.size())
    throw error("tokenizer: tokenizer.ggml.token_type has " + std::to_string(vocab_.types.size()) +
                " entries but tokenizer.ggml.tokens has " + std::to_string(t.size()));
  auto check_id = [&](int32_t id, const char* key) {
    if (id < -1 || id >= int32_t(t.size()))
      throw error(std::string("tokenizer: ") + key + " = " + std::to_string(id) + " is outside the vocabulary of " +
                  std::to_string(t.size()));
  };
  check_id(vocab_.bos_id, "tokenizer.ggml.bos_token_id");
  check_id(vocab_.eos_id, "tokenizer.ggml.eos_token_id");
  check_id(vocab_.pad_id, "tokenizer.ggml.padding_token_id");

  ids_.reserve(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) ids_.emplace(t[i], int32_t(i));  // first id wins

  // Every byte must have its single-symbol token, or some text would be unencodable.
  const auto& sym = byte_symbols();
  for (int b = 0; b < 256; ++b) {
    const auto it = ids_.find(sym[std::size_t(b)]);
    if (it == ids_.end())
      throw error("tokenizer: byte-level vocabulary lacks the token for byte " + std::to_string(b) + " ('" +
                  sym[std::size_t(b)] + "')");
    byte_ids_[b] = it->second;
  }

  for (std::size_t r = 0; r < vocab_.merges.size(); ++r) {
    const std::string& m = vocab_.merges[r];
    const std::size_t sp = m.find(' ');
    auto fail = [&](const std::string& why) {
      throw error("tokenizer: tokenizer.ggml.merges[" + std::to_string(r) + "] '" + m + "': " + why);
    };
    if (sp == std::string::npos || sp == 0 || sp + 1 == m.size()) fail("expected 'left right'");
    const std::string_view left(m.data(), sp), right(m.data() + sp + 1, m.size() - sp - 1);
    const int32_t l = find(left), rr = find(right);
    std::string joined(left);
    joined += right;
    const int32_t res = find(joined);
    if (l < 0) fail("'" + std::string(left) + "' is not a token");
    if (rr < 0) fail("'" + std::string(right) + "' is not a token");
    if (res < 0) fail("the merged '" + joined + "' is not a token");
    merges_.insert(l, rr, int32_t(r), res);
  }

  bytes_.resize(t.size());
  trie_.emplace_back();
  for (std::size_t i = 0; i < t.size(); ++i) {
    const token_type ty = vocab_.types[i];
    if (ty == token_type::normal) {
      auto raw = symbols_to_bytes(t[i]);
      if (!raw) throw error("tokenizer: normal token " + std::to_string(i) + " '" + t[i] + "' is not byte-level text");
      bytes_[i] = std::move(*raw);
    } else if (ty == token_type::byte && byte_token_value(t[i]) >= 0) {
      bytes_[i] = std::string(1, char(byte_token_value(t[i])));
    } else {
      bytes_[i] = t[i];
    }
    if (!is_special(ty) || t[i].empty()) continue;
    int32_t node = 0;
    for (unsigned char c : t[i]) {
      auto& ch = trie_[std::size_t(node)].children;
      auto it = std::lower_bound(ch.begin(), ch.end(), c, [](const auto& e, unsigned char b) { return e.first < b; });
      if (it != ch.end() && it->first == c) {
        node = it->second;
      } else {
        const int32_t fresh = int32_t(trie_.size());
        ch.insert(it, {c, fresh});
        trie_.emplace_back();  // may reallocate: `ch` is not used after this
        node = fresh;
      }
    }
    if (trie_[std::size_t(node)].token < 0) trie_[std::size_t(node)].token = int32_t(i);
    special_first_byte_[static_cast<unsigned char>(t[i][0])] = true;
  }
}

int32_t bpe_tokenizer::find(std::string_view text) const {
  const auto it = ids_.find(text);
  return it == ids_.end() ? -1 : it->second;
}

int32_t bpe_tokenizer::id_of(std::string_view text) const {
  const int32_t id = find(text);
  if (id < 0) throw error("tokenizer: the vocabulary has no token '" + std::string(text) + "'");
  return id;
}

const std::string& bpe_tokenizer::token_bytes(int32_t id) const {
  if (id < 0 || std::size_t(id) >= bytes_.size())
    throw error("tokenizer: token id " + std::to_string(id) + " is outside the vocabulary of " +
                std::to_string(bytes_.size()));
  return bytes_[std::size_t(id)];
}

std::pair<std::size_t, int32_t> bpe_tokenizer::match_special(std::string_view text) const {
  std::pair<std::size_t, int32_t> best{0, -1};
  int32_t node = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto& ch = trie_[std::size_t(node)].children;
    const unsigned char c = static_cast<unsigned char>(text[i]);
    auto it = std::lower_bound(ch.begin(), ch.end(), c, [](const auto& e, unsigned char b) { return e.first < b; });
    if (it == ch.end() || it->first != c) break;
    node = it->second;
    if (trie_[std::size_t(node)].token >= 0) best = {i + 1, trie_[std::size_t(node)].token};  // longest so far
  }
  return best;
}

void bpe_tokenizer::encode_plain(std::string_view text, std::vector<int32_t>& out, workspace& ws) const {
  constexpr std::size_t max_cached_piece = 64;
  constexpr std::size_t chunk_bytes = std::size_t{1} << 16;  // keeps the scratch in cache
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = next_safe_cut(text, begin + chunk_bytes);
    ws.pieces.clear();
    deepseek_pre_tokenize(text.substr(begin, end - begin), ws.pieces, ws.pre, whitespace_);
    begin = end;
    for (std::string_view piece : ws.pieces) {
      const bool cacheable = piece.size() <= max_cached_piece;
      if (cacheable) {
        const auto hit = ws.cache.find(piece);
        if (hit.found) {
          out.insert(out.end(), hit.ids.begin(), hit.ids.end());
          continue;
        }
      }
      ws.symbols.clear();
      for (unsigned char c : piece) ws.symbols.push_back(byte_ids_[c]);
      bpe_merge(ws.symbols, merges_, ws.bpe);
      out.insert(out.end(), ws.symbols.begin(), ws.symbols.end());
      if (cacheable) ws.cache.insert(piece, ws.symbols);
    }
  }
}

void bpe_tokenizer::encode(std::string_view text, special_tokens mode, std::vector<int32_t>& out) const {
  workspace ws;
  if (mode == special_tokens::plain) {
    encode_plain(text, out, ws);
    return;
  }
  // Leftmost-longest special-token matching, scanning left to right (HF added-token splitting);
  // the text between matches is encoded as ordinary text.
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (!special_first_byte_[static_cast<unsigned char>(text[i])]) {
      ++i;
      continue;
    }
    const auto [len, id] = match_special(text.substr(i));
    if (len == 0) {
      ++i;
      continue;
    }
    if (start < i) encode_plain(text.substr(start, i - start), out, ws);
    out.push_back(id);
    i += len;
    start = i;
  }
  if (start < text.size()) encode_plain(text.substr(start), out, ws);
}

std::vector<int32_t> bpe_tokenizer::encode(std::string_view text, special_tokens mode) const {
  std::vector<int32_t> out;
  out.reserve(text.size() / 3 + 4);
  encode(text, mode, out);
  return out;
}

std::string bpe_tokenizer::decode(std::span<const int32_t> ids, decode_specials mode) const {
  std::string out;
  for (int32_t id : ids) {
    const std::string& b = token_bytes(id);
    if (mode == decode_specials::skip && type(id) != token_type::normal && type(id) != token_type::byte) continue;
    out += b;
  }
  return out;
}

}  // namespace ordo::tokenizer
