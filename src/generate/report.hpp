/// The statistics block `ordo generate` prints after the text: model load time, prompt
/// (prefill) rate, time to first token, generation rate and why generation stopped. Rates divide
/// only what was measured by the time it took: the generation rate counts the forward steps of
/// decoding, not the first token (which comes from the prompt's last step), so `-n 1` reports no
/// generation rate instead of an absurd one.
#pragma once
#include <string>

#include "generate/generate.hpp"

namespace ordo::generate {

/// Multi-line, each line "<label>  <value>", ending in a newline.
std::string format_stats(const stats& st);

/// "end of sequence", "-n 24 reached", "context full (-c 100)", "interrupted".
std::string describe_stop(const stats& st);

}  // namespace ordo::generate
