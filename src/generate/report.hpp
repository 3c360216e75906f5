/// The statistics block `ordo generate` prints after the text: model load time, prompt
/// (prefill) rate, time to first token, generation rate and why generation stopped. Rates divide
/// only what was measured by the time it took: the generation rate counts the forward steps of
/// decoding, not the first token (which comes from the prompt's last step), so `-n 1` reports no
/// generation rate instead of an absurd one.
#pragma once
#include <string>

#include "generate/chat_session.hpp"
#include "generate/generate.hpp"

namespace ordo::generate {

/// Multi-line, each line "<label>  <value>", ending in a newline.
std::string format_stats(const stats& st);

/// "end of sequence", "-n 24 reached", "context full (-c 100)", "stop string \"###\"",
/// "interrupted".
std::string describe_stop(const stats& st);
std::string describe_stop(stop_reason why, int max_tokens, std::uint64_t context, const std::string& stop_string);

/// One line after each `ordo chat` turn, in brackets: what was fed (the new tokens and how many
/// positions the state kept, or "fresh state" when the backend was reopened), the first-token
/// time, the generation rate over the decode steps, why it stopped and how full the context is.
std::string format_turn_stats(const turn_stats& t, const chat_options& o);

}  // namespace ordo::generate
