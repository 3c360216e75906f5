#include "generate/report.hpp"

#include <fmt/core.h>

namespace ordo::generate {

namespace {
std::string rate(double count, double seconds) {
  if (count <= 0 || seconds <= 0) return "";
  return fmt::format(" ({:.1f} tok/s)", count / seconds);
}
std::string plural(std::size_t n, const char* one) { return fmt::format("{} {}{}", n, one, n == 1 ? "" : "s"); }
}  // namespace

std::string describe_stop(stop_reason why, int max_tokens, std::uint64_t context, const std::string& stop_string) {
  switch (why) {
    case stop_reason::token_limit: return fmt::format("-n {} reached", max_tokens);
    case stop_reason::end_of_sequence: return "end of sequence";
    case stop_reason::context_full: return fmt::format("context full (-c {})", context);
    case stop_reason::stop_string: return fmt::format("stop string \"{}\"", stop_string);
    case stop_reason::interrupted: return "interrupted";
  }
  return "";
}

std::string describe_stop(const stats& st) { return describe_stop(st.stop, st.max_tokens, st.context, st.stop_string); }

std::string format_turn_stats(const turn_stats& t, const chat_options& o) {
  std::string s = "[fed ";
  s += t.fed < t.to_feed ? fmt::format("{} of {}", t.fed, plural(t.to_feed, "token")) : plural(t.fed, "token");
  s += t.reopened ? " (fresh state)" : fmt::format(" ({} kept)", t.kept);
  s += fmt::format(" in {:.2f} s{}", t.prefill_seconds, rate(double(t.fed), t.prefill_seconds));
  if (t.first_token_seconds >= 0) s += fmt::format("; first token {:.2f} s", t.first_token_seconds);
  s += fmt::format("; generated {}", plural(t.generated, "token"));
  if (t.decode_steps > 0)
    s += fmt::format(": {} in {:.2f} s{}", plural(t.decode_steps, "decode step"), t.decode_seconds,
                     rate(double(t.decode_steps), t.decode_seconds));
  s += fmt::format("; stopped: {}; context {} of {}]", describe_stop(t.stop, o.max_tokens, o.context, t.stop_string),
                   t.transcript_tokens, o.context);
  return s;
}

std::string format_stats(const stats& st) {
  std::string s;
  s += fmt::format("load         {:.2f} s (tokenizer and model)\n", st.load_seconds);
  if (st.prefilled_tokens < st.prompt_tokens)
    s += fmt::format("prompt       {} of {} tokens in {:.2f} s{}\n", st.prefilled_tokens, st.prompt_tokens,
                     st.prefill_seconds, rate(double(st.prefilled_tokens), st.prefill_seconds));
  else
    s += fmt::format("prompt       {} in {:.2f} s{}\n", plural(st.prompt_tokens, "token"), st.prefill_seconds,
                     rate(double(st.prompt_tokens), st.prefill_seconds));
  if (st.first_token_seconds >= 0) s += fmt::format("first token  {:.2f} s after the prompt started\n", st.first_token_seconds);
  if (st.decode_steps > 0)
    s += fmt::format("generated    {}: {} in {:.2f} s{}\n", plural(st.generated_tokens, "token"),
                     plural(st.decode_steps, "decode step"), st.decode_seconds,
                     rate(double(st.decode_steps), st.decode_seconds));
  else
    s += fmt::format("generated    {} (no decode step: no generation rate)\n", plural(st.generated_tokens, "token"));
  s += fmt::format("stopped      {}\n", describe_stop(st));
  return s;
}

}  // namespace ordo::generate
