#include "chat/think_mode.hpp"

namespace ordo::chat {

std::optional<think_mode> parse_reasoning_effort(std::string_view name) {
  if (name == "max") return think_mode::max;
  if (name == "xhigh" || name == "high" || name == "medium" || name == "low" || name == "minimal")
    return think_mode::high;
  if (name == "none") return think_mode::none;
  return std::nullopt;
}

std::optional<think_mode> think_mode_for_model(std::string_view model) {
  if (model == "deepseek-chat") return think_mode::none;
  if (model == "deepseek-reasoner") return think_mode::high;
  return std::nullopt;
}

think_mode effective_think_mode(think_mode requested, uint64_t context_tokens) {
  if (requested == think_mode::max && context_tokens < think_max_min_context) return think_mode::high;
  return requested;
}

std::string_view to_string(think_mode m) {
  switch (m) {
    case think_mode::none: return "none";
    case think_mode::high: return "high";
    case think_mode::max: return "max";
  }
  return "?";
}

}  // namespace ordo::chat
