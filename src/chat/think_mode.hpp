/// DS4 reasoning-effort tiers (ds4-model.md §9.3): none (answer directly), high (think first),
/// max (think first, with the Think-Max instruction prefix, only when the context is long enough).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace ordo::chat {

enum class think_mode { none, high, max };

/// Think-Max is downgraded to high below this context size (DS4_THINK_MAX_MIN_CONTEXT).
inline constexpr uint64_t think_max_min_context = 393216;

/// Inserted right after BOS in max mode (DS4_REASONING_EFFORT_MAX_PREFIX, verbatim).
inline constexpr std::string_view think_max_prefix =
    "Reasoning Effort: Absolute maximum with no shortcuts permitted.\n"
    "You MUST be very thorough in your thinking and comprehensively decompose the problem to resolve the root "
    "cause, rigorously stress-testing your logic against all potential paths, edge cases, and adversarial "
    "scenarios.\n"
    "Explicitly write out your entire deliberation process, documenting every intermediate step, considered "
    "alternative, and rejected hypothesis to ensure absolutely no assumption is left unchecked.\n\n";

/// API reasoning-effort names: "max" → max; "xhigh", "high", "medium", "low", "minimal" → high;
/// "none" → none; anything else → nullopt (the caller reports it).
std::optional<think_mode> parse_reasoning_effort(std::string_view name);

/// Model aliases that imply a mode: "deepseek-chat" → none, "deepseek-reasoner" → high.
std::optional<think_mode> think_mode_for_model(std::string_view model);

/// The mode actually used for a context of `context_tokens`: max becomes high below
/// think_max_min_context; other modes are unchanged.
think_mode effective_think_mode(think_mode requested, uint64_t context_tokens);

/// "none", "high", "max".
std::string_view to_string(think_mode m);

}  // namespace ordo::chat
