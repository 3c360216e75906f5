/// The special-token strings DS4's prompt format uses (ds4-model.md §8.3, §9.2). Engines look
/// their ids up by string in the loaded vocabulary, never by hard-coded id: the ids differ
/// between vocabularies (the real 129,280-entry one, the byte vocabulary of tiny test models).
#pragma once
#include <string_view>

namespace ordo::tokenizer::ds4 {

inline constexpr std::string_view bos = "<｜begin▁of▁sentence｜>";
inline constexpr std::string_view eos = "<｜end▁of▁sentence｜>";
inline constexpr std::string_view user = "<｜User｜>";
inline constexpr std::string_view assistant = "<｜Assistant｜>";
inline constexpr std::string_view think_open = "<think>";
inline constexpr std::string_view think_close = "</think>";
inline constexpr std::string_view dsml = "｜DSML｜";

/// DS4 Flash's vocabulary size (token_embd rows; the tokenizer's 128,815 entries padded).
inline constexpr int vocab_size = 129280;

}  // namespace ordo::tokenizer::ds4
