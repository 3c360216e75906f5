// chat_session (src/generate/chat_session.hpp) on a fake backend whose logits are a hash of the
// whole history it was fed: a session that fed a token twice, skipped one or reused a state that
// does not hold the transcript would generate other tokens than the independent replay here,
// which recomputes every greedy choice from the transcript alone.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "chat/chat_template.hpp"
#include "generate/chat_session.hpp"
#include "tokenizer/ds4_tokens.hpp"
#include "tokenizer/vocab_builders.hpp"

namespace {

using namespace ordo;
using generate::chat_session;
using generate::stop_reason;

constexpr uint32_t n_vocab = 512;

// Logits after `history`: full-mantissa floats of mixed sign from a 64-bit mix of the history.
std::vector<float> fake_logits(const std::vector<int32_t>& history) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (int32_t t : history) h = (h ^ uint64_t(t)) * 0x100000001b3ull, h ^= h >> 29;
  std::vector<float> z(n_vocab);
  for (uint32_t i = 0; i < n_vocab; ++i) {
    uint64_t x = h + 0x632be59bd9b4e019ull * (i + 1);
    x ^= x >> 31, x *= 0xbf58476d1ce4e5b9ull, x ^= x >> 27;
    z[i] = float(double(int64_t(x >> 11) - (int64_t(1) << 52)) / double(int64_t(1) << 50));
  }
  return z;
}

int32_t argmax(const std::vector<float>& z) {
  int32_t best = 0;
  for (uint32_t i = 1; i < z.size(); ++i)
    if (z[i] > z[best]) best = int32_t(i);
  return best;
}

struct backend_log {
  int opened = 0;
  std::size_t steps = 0;                 // over all instances
  std::vector<int32_t> current_history;  // the live instance's
};

class fake_backend final : public eval::backend {
 public:
  explicit fake_backend(backend_log& log) : log_(&log) {
    ++log.opened;
    log.current_history.clear();
  }
  std::string_view name() const override { return "fake"; }
  uint32_t n_vocab() const override { return ::n_vocab; }
  std::vector<float> step(int32_t token) override {
    log_->current_history.push_back(token);
    ++log_->steps;
    return fake_logits(log_->current_history);
  }

 private:
  backend_log* log_;
};

struct fixture {
  tokenizer::bpe_tokenizer tok{[] {
    auto v = tokenizer::byte_vocab();
    tokenizer::pad_vocab(v, n_vocab);
    return v;
  }()};
  backend_log log;
  chat_session make(generate::chat_options o) {
    return chat_session(tok, [this] { return std::make_unique<fake_backend>(log); }, o);
  }
  // The greedy reply the transcript prefix [0, end) must get, up to n tokens or end of sequence.
  std::vector<int32_t> replay(const std::vector<int32_t>& transcript, std::size_t end, int n) const {
    std::vector<int32_t> h(transcript.begin(), transcript.begin() + long(end)), out;
    for (int i = 0; i < n; ++i) {
      const int32_t t = argmax(fake_logits(h));
      if (t == tok.eos_id()) break;
      out.push_back(t);
      h.push_back(t);
    }
    return out;
  }
};

generate::chat_options options(int n = 5) {
  generate::chat_options o;
  o.max_tokens = n;
  o.system = "Be brief.";
  return o;
}

TEST(chat_session, first_turn_is_the_single_turn_prompt_and_later_turns_feed_only_new_tokens) {
  fixture f;
  auto s = f.make(options());
  const auto t1 = s.turn("Hello", {});
  const auto prompt = chat::render_single_turn("Be brief.", "Hello", chat::think_mode::none).encode(f.tok);
  const auto& tr = s.transcript();
  ASSERT_GE(tr.size(), prompt.size() + 1);
  EXPECT_TRUE(std::equal(prompt.begin(), prompt.end(), tr.begin()));
  EXPECT_EQ(std::vector<int32_t>(tr.begin() + long(prompt.size()), tr.end() - 1), f.replay(tr, prompt.size(), 5));
  EXPECT_EQ(tr.back(), f.tok.eos_id());
  EXPECT_EQ(t1.fed, prompt.size());

  for (const char* text : {"Second", "Third turn"}) {
    const std::size_t before = tr.size(), steps_before = f.log.steps;
    const auto t = s.turn(text, {});
    EXPECT_FALSE(t.reopened) << text;
    EXPECT_EQ(t.kept, f.log.current_history.size() - t.fed - t.decode_steps) << text;
    EXPECT_EQ(f.log.steps - steps_before, t.fed + t.decode_steps) << "fed more than the new tokens: " << text;
    EXPECT_LT(t.fed, before) << text;
    // The backend's history is the transcript's prefix, and the reply is what the prefix gets.
    EXPECT_TRUE(std::equal(f.log.current_history.begin(), f.log.current_history.end(), tr.begin())) << text;
    const std::size_t reply_at = tr.size() - 1 - t.generated;
    EXPECT_EQ(std::vector<int32_t>(tr.begin() + long(reply_at), tr.end() - 1), f.replay(tr, reply_at, 5)) << text;
  }
  EXPECT_EQ(f.log.opened, 1);
}

TEST(chat_session, think_max_prefix_in_or_out_starts_a_fresh_state) {
  fixture f;
  auto o = options(2);
  o.context = chat::think_max_min_context;
  auto s = f.make(o);
  s.turn("A", {});
  s.set_think(chat::think_mode::max);
  const auto t = s.turn("B", {});
  EXPECT_TRUE(t.reopened);
  EXPECT_EQ(f.log.opened, 2);
  EXPECT_EQ(t.kept, 0u);
  // The prefix sits right after BOS, before the system text.
  const auto prefix = f.tok.encode(chat::think_max_prefix, tokenizer::special_tokens::plain);
  const auto& tr = s.transcript();
  EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), tr.begin() + 1));
  EXPECT_EQ(t.fed, tr.size() - 1 - t.generated);
  EXPECT_EQ(std::vector<int32_t>(tr.end() - 1 - long(t.generated), tr.end() - 1), f.replay(tr, t.fed, 2));

  s.set_think(chat::think_mode::high);  // the prefix goes: the state no longer holds a prefix
  const auto back = s.turn("C", {});
  EXPECT_TRUE(back.reopened);
  EXPECT_EQ(s.transcript()[1], f.tok.encode("Be brief.", tokenizer::special_tokens::plain)[0]);
  const auto again = s.turn("D", {});
  EXPECT_FALSE(again.reopened);

  // Below the Think-Max context, max runs as high: no prefix, no reopen.
  fixture g;
  auto small = g.make(options(2));
  small.turn("A", {});
  small.set_think(chat::think_mode::max);
  EXPECT_EQ(small.effective_think(), chat::think_mode::high);
  EXPECT_FALSE(small.turn("B", {}).reopened);
}

TEST(chat_session, an_interrupted_prefill_rolls_the_turn_back_and_the_next_turn_starts_fresh) {
  fixture f;
  auto s = f.make(options());
  s.turn("Hello", {});
  const auto before = s.transcript();
  int polls = 0;
  generate::turn_events ev;
  // Five tokens fed: turn 1's last reply token and EOS, then <｜User｜> T h. A stop after three
  // would leave the state a prefix of any next turn (it ends at <｜User｜>): no reopen needed.
  ev.stop_requested = [&] { return ++polls > 5; };
  const auto t = s.turn("This turn is interrupted while it is fed", ev);
  EXPECT_EQ(t.stop, stop_reason::interrupted);
  EXPECT_EQ(t.fed, 5u);
  EXPECT_LT(t.fed, t.to_feed);
  EXPECT_EQ(s.transcript(), before);
  const auto next = s.turn("Next", {});
  EXPECT_TRUE(next.reopened);
  const auto& tr = s.transcript();
  EXPECT_EQ(std::vector<int32_t>(tr.end() - 1 - long(next.generated), tr.end() - 1),
            f.replay(tr, tr.size() - 1 - next.generated, 5));
}

TEST(chat_session, an_interrupted_reply_keeps_its_tokens_and_the_state) {
  fixture f;
  auto s = f.make(options(50));
  int polls = 0;
  generate::turn_events ev;
  const std::size_t prompt = chat::render_single_turn("Be brief.", "Hello", chat::think_mode::none).encode(f.tok).size();
  ev.stop_requested = [&] { return ++polls > int(prompt) + 2; };  // two decode steps, then stop
  const auto t = s.turn("Hello", ev);
  if (t.stop == stop_reason::end_of_sequence) GTEST_SKIP() << "the fake model ended the reply first";
  EXPECT_EQ(t.stop, stop_reason::interrupted);
  EXPECT_EQ(t.generated, 3u);
  EXPECT_EQ(s.transcript().back(), f.tok.eos_id());
  EXPECT_FALSE(s.turn("More", {}).reopened);
}

TEST(chat_session, a_turn_that_does_not_fit_is_refused_and_clear_starts_over) {
  fixture f;
  auto o = options(3);
  o.context = 40;
  auto s = f.make(o);
  s.turn("Hi", {});
  const auto before = s.transcript();
  EXPECT_THROW(s.turn("a message far too long for a context of forty tokens", {}), std::runtime_error);
  EXPECT_EQ(s.transcript(), before);
  s.clear();
  const auto t = s.turn("Hi", {});
  EXPECT_TRUE(t.reopened);
  const auto prompt = chat::render_single_turn("Be brief.", "Hi", chat::think_mode::none).encode(f.tok);
  EXPECT_EQ(std::vector<int32_t>(s.transcript().begin(), s.transcript().begin() + long(prompt.size())), prompt);
  EXPECT_EQ(s.transcript(), before) << "the same first turn after /clear";
}

}  // namespace
