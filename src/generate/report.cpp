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

std::string describe_stop(const stats& st) {
  switch (st.stop) {
    case stop_reason::token_limit: return fmt::format("-n {} reached", st.max_tokens);
    case stop_reason::end_of_sequence: return "end of sequence";
    case stop_reason::context_full: return fmt::format("context full (-c {})", st.context);
    case stop_reason::interrupted: return "interrupted";
  }
  return "";
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
