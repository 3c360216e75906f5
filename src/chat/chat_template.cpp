#include "chat/chat_template.hpp"

#include "tokenizer/ds4_tokens.hpp"

namespace ordo::chat {
namespace ds4 = tokenizer::ds4;

namespace {

void open_turn(prompt& p, think_mode mode) {
  p.special(ds4::assistant);
  p.special(mode == think_mode::none ? ds4::think_close : ds4::think_open);
}

void begin(prompt& p, think_mode mode) {
  p.special(ds4::bos);
  if (mode == think_mode::max) p.text(think_max_prefix);
}

/// "<｜DSML｜" + tag: the marker is a special token, the brackets and names around it text.
void dsml_open(prompt& p, std::string_view rest) {
  p.text("<");
  p.special(ds4::dsml);
  p.text(rest);
}
void dsml_close(prompt& p, std::string_view rest) {
  p.text("</");
  p.special(ds4::dsml);
  p.text(rest);
}

void render_tool_calls(prompt& p, const std::vector<tool_call>& calls) {
  if (calls.empty()) return;
  p.text("\n\n");
  dsml_open(p, "tool_calls>\n");
  for (const tool_call& c : calls) {
    dsml_open(p, "invoke name=\"" + c.name + "\">\n");
    for (const tool_parameter& a : c.parameters) {
      dsml_open(p, "parameter name=\"" + a.name + "\" string=\"" + (a.string_value ? "true" : "false") + "\">");
      p.text(a.value);
      dsml_close(p, "parameter>\n");
    }
    dsml_close(p, "invoke>\n");
  }
  dsml_close(p, "tool_calls>");
}

}  // namespace

std::string escape_tool_result(std::string_view content) {
  std::string out;
  out.reserve(content.size());
  for (char c : content) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

prompt render_single_turn(std::string_view system, std::string_view user_prompt, think_mode mode) {
  prompt p;
  begin(p, mode);
  p.text(system);
  p.special(ds4::user);
  p.text(user_prompt);
  open_turn(p, mode);
  return p;
}

prompt render_conversation(const std::vector<message>& messages, const render_options& options) {
  const bool thinking = options.mode != think_mode::none;
  prompt p;
  begin(p, options.mode);
  p.text(options.tools_block);

  bool first_system = true;
  for (const message& m : messages) {
    if (m.role != role::system && m.role != role::developer) continue;
    if (!first_system) p.text("\n\n");
    p.text(m.content);
    first_system = false;
  }

  std::size_t last_user = messages.size();  // index of the last user message (none: size)
  bool uses_tools = false;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].role == role::user) last_user = i;
    if (messages[i].role == role::tool || !messages[i].tool_calls.empty()) uses_tools = true;
  }

  for (std::size_t i = 0; i < messages.size(); ++i) {
    const message& m = messages[i];
    switch (m.role) {
      case role::system:
      case role::developer:
        break;
      case role::user:
        p.special(ds4::user);
        p.text(m.content);
        break;
      case role::tool:
        if (i == 0 || messages[i - 1].role != role::tool) p.special(ds4::user);
        p.text("<tool_result>");
        p.text(escape_tool_result(m.content));
        p.text("</tool_result>");
        break;
      case role::assistant: {
        p.special(ds4::assistant);
        const bool after_last_user = last_user == messages.size() || i > last_user;
        if (thinking && (uses_tools || after_last_user)) {
          p.special(ds4::think_open);
          p.text(m.reasoning);
        }
        p.special(ds4::think_close);
        p.text(m.content);
        render_tool_calls(p, m.tool_calls);
        p.special(ds4::eos);
        break;
      }
    }
  }
  open_turn(p, options.mode);
  return p;
}

}  // namespace ordo::chat
