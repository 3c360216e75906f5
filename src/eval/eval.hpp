/// `ordo eval`: evaluates a prompt with a backend, optionally greedy-continues it, and records the
/// logits of every position (ORDL). Kept out of the app so tests drive it directly.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "eval/backend.hpp"
#include "eval/ordl.hpp"

namespace ordo::eval {

/// Parses "1,2,3" (commas and/or whitespace), or the "[1, 2, 3]" first line of a --dump-tokens
/// file (the lines after it are ignored); throws std::invalid_argument naming `what` and the bad
/// item.
std::vector<int32_t> parse_token_ids(const std::string& text, const std::string& what);

/// Feeds `prompt` (backend::prefill) then `n_gen` greedy tokens (argmax, ties to the lowest id), each fed back.
/// Returns every position's logits; ORDL row i follows tokens[i]. Throws on an empty prompt or a
/// token outside the vocabulary.
/// With `spec` (b.speculate's, greedy chooser): the generated tokens come from speculative rounds
/// (the same tokens and logits, E3; rows a round commits past n_gen are not recorded).
ordl evaluate(backend& b, const std::vector<int32_t>& prompt, int n_gen, runtime::speculative_decoder* spec = nullptr);

/// Index of the largest value, the lowest index among equals.
int32_t argmax(std::span<const float> row);

}  // namespace ordo::eval
