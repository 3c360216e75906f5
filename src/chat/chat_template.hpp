/// DS4's prompt format (ds4-model.md §9.2), rendered into a `prompt` whose special tokens come
/// only from the template. Two forms:
///  - single turn (CLI / engine, also `/v1/completions`):
///      BOS [Think-Max prefix] [system] <｜User｜>prompt<｜Assistant｜> <think> | </think>
///  - conversation (server):
///      BOS [Think-Max prefix] [tools block] [system/developer contents joined by "\n\n"]
///      user       <｜User｜>content
///      tool       <｜User｜> once per run of consecutive tool results, then
///                 <tool_result>escaped content</tool_result> for each
///      assistant  <｜Assistant｜> + (thinking: "<think>reasoning</think>" when the history uses tools
///                 or the message follows the last user message, else "</think>"; not thinking:
///                 "</think>") + content + DSML tool calls + <｜end▁of▁sentence｜>
///      then the open turn <｜Assistant｜><think> (thinking) or <｜Assistant｜></think>.
/// Choices where the spec is silent (documented in the report and tests): tool-result content is
/// XML-escaped (& < >) so it cannot close its element; DSML elements are separated by "\n"; the
/// tools block is caller-rendered text placed verbatim.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "chat/prompt.hpp"
#include "chat/think_mode.hpp"

namespace ordo::chat {

enum class role { system, developer, user, assistant, tool };

/// One parameter of a DSML tool call: `string_value` true writes the raw text (string="true"),
/// false writes JSON (string="false").
struct tool_parameter {
  std::string name;
  std::string value;
  bool string_value = true;
};

struct tool_call {
  std::string name;
  std::vector<tool_parameter> parameters;
};

struct message {
  chat::role role = chat::role::user;
  std::string content;
  std::string reasoning;              // assistant only: the thinking text
  std::vector<tool_call> tool_calls;  // assistant only
};

struct render_options {
  think_mode mode = think_mode::high;  // already effective (see effective_think_mode)
  std::string tools_block;             // rendered tool schemas, placed before the system text
};

/// CLI/engine single-turn prompt. An empty `system` is omitted.
prompt render_single_turn(std::string_view system, std::string_view user_prompt, think_mode mode);

/// Server conversation prompt, ending with the open assistant turn.
prompt render_conversation(const std::vector<message>& messages, const render_options& options);

/// Escapes tool-result text for <tool_result>…</tool_result>: & → &amp;, < → &lt;, > → &gt;.
std::string escape_tool_result(std::string_view content);

/// The CLI's default system prompt.
inline constexpr std::string_view default_system_prompt = "You are a helpful assistant";

}  // namespace ordo::chat
