// The statistics of `ordo generate` divide what was measured by the time it took (issue 7: -n 1
// reported 13,155 tok/s by counting a token without its forward step).
#include <gtest/gtest.h>

#include "generate/report.hpp"

namespace {

using namespace ordo::generate;

stats sample() {
  stats st;
  st.prompt_tokens = st.prefilled_tokens = 100;
  st.prefill_seconds = 4.0;
  st.load_seconds = 1.25;
  st.first_token_seconds = 4.1;
  st.generated_tokens = 11;
  st.decode_steps = 10;
  st.decode_seconds = 2.0;
  st.max_tokens = 11;
  st.context = 4096;
  return st;
}

TEST(generate_report, rates_use_prefilled_tokens_and_decode_steps) {
  const std::string s = format_stats(sample());
  EXPECT_NE(s.find("load         1.25 s"), std::string::npos) << s;
  EXPECT_NE(s.find("prompt       100 tokens in 4.00 s (25.0 tok/s)"), std::string::npos) << s;
  EXPECT_NE(s.find("first token  4.10 s"), std::string::npos) << s;
  EXPECT_NE(s.find("generated    11 tokens: 10 decode steps in 2.00 s (5.0 tok/s)"), std::string::npos) << s;
  EXPECT_NE(s.find("stopped      -n 11 reached"), std::string::npos) << s;
}

TEST(generate_report, one_token_has_no_generation_rate) {
  stats st = sample();
  st.generated_tokens = 1;
  st.decode_steps = 0;
  st.decode_seconds = 0;
  const std::string s = format_stats(st);
  EXPECT_NE(s.find("generated    1 token (no decode step: no generation rate)"), std::string::npos) << s;
}

TEST(generate_report, interrupted_prefill_reports_the_part_done) {
  stats st = sample();
  st.prefilled_tokens = 40;
  st.first_token_seconds = -1;
  st.generated_tokens = st.decode_steps = 0;
  st.stop = stop_reason::interrupted;
  const std::string s = format_stats(st);
  EXPECT_NE(s.find("prompt       40 of 100 tokens in 4.00 s (10.0 tok/s)"), std::string::npos) << s;
  EXPECT_EQ(s.find("first token"), std::string::npos) << s;
  EXPECT_NE(s.find("stopped      interrupted"), std::string::npos) << s;
}

TEST(generate_report, stop_reasons) {
  stats st = sample();
  st.stop = stop_reason::context_full;
  EXPECT_EQ(describe_stop(st), "context full (-c 4096)");
  st.stop = stop_reason::end_of_sequence;
  EXPECT_EQ(describe_stop(st), "end of sequence");
}

}  // namespace
