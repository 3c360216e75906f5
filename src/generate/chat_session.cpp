#include "generate/chat_session.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "chat/prompt.hpp"
#include "tokenizer/ds4_tokens.hpp"

namespace ordo::generate {

namespace ds4 = tokenizer::ds4;

namespace {
using clock_type = std::chrono::steady_clock;
double seconds_between(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

chat_session::chat_session(const tokenizer::bpe_tokenizer& tok, backend_opener open, chat_options o)
    : tok_(&tok), open_(std::move(open)), opt_(std::move(o)), sampler_(opt_.sampler) {
  if (opt_.context == 0) throw std::invalid_argument("--ctx must be >= 1");
  if (opt_.max_tokens < unlimited_tokens) throw std::invalid_argument("--tokens must be >= -1");
  rebuild_head();
}

void chat_session::rebuild_head() {
  chat::prompt p;
  p.special(ds4::bos);
  if (effective_think() == chat::think_mode::max) p.text(chat::think_max_prefix);
  p.text(opt_.system);
  const std::vector<int32_t> head = p.encode(*tok_);
  transcript_.erase(transcript_.begin(), transcript_.begin() + std::ptrdiff_t(head_));
  transcript_.insert(transcript_.begin(), head.begin(), head.end());
  head_ = head.size();
}

void chat_session::clear() {
  transcript_.clear();
  head_ = 0;
  rebuild_head();
  consumed_.clear();
  state_dropped_ = true;  // the next turn starts a fresh state (restart, or a new backend)
}

void chat_session::open_backend() {
  spec_ = nullptr;
  backend_ = open_();
  spec_ = start_speculation(*backend_, opt_.spec, sampler_);
}

void chat_session::open() {
  if (!backend_) open_backend(), consumed_.clear();
}

void chat_session::set_think(chat::think_mode m) { opt_.think = m; }

void chat_session::set_context(std::uint64_t context) {
  if (context == 0) throw std::invalid_argument("/ctx must be >= 1");
  opt_.context = context;
}

turn_stats chat_session::turn(std::string_view user_text, const turn_events& ev) {
  const auto stop_requested = [&] { return ev.stop_requested && ev.stop_requested(); };
  rebuild_head();  // the mode or the context may have moved the Think-Max prefix in or out
  const chat::think_mode mode = effective_think();
  chat::prompt p;
  p.special(ds4::user);
  p.text(user_text);
  p.special(ds4::assistant);
  p.special(mode == chat::think_mode::none ? ds4::think_close : ds4::think_open);
  const std::vector<int32_t> add = p.encode(*tok_);
  const std::size_t rollback = transcript_.size();
  if (rollback + add.size() >= opt_.context)
    throw std::runtime_error("the conversation is " + std::to_string(rollback) + " tokens and this turn adds " +
                             std::to_string(add.size()) + ": the context of " + std::to_string(opt_.context) +
                             " leaves no room for a reply (/clear starts over, /ctx N enlarges it)");
  transcript_.insert(transcript_.end(), add.begin(), add.end());

  turn_stats st;
#if defined(ORDO_MUTANT_CHAT_ALWAYS_REOPEN)  // mutation check: every turn feeds everything
  const bool holds_prefix = false;
#elif defined(ORDO_MUTANT_CHAT_LENGTH_ONLY)  // mutation check: a state as long as a prefix is taken for one
  const bool holds_prefix = backend_ && !state_dropped_ && consumed_.size() <= transcript_.size();
#else
  const bool holds_prefix = backend_ && !state_dropped_ && consumed_.size() <= transcript_.size() &&
                            std::equal(consumed_.begin(), consumed_.end(), transcript_.begin());
#endif
  if (!holds_prefix) {
    // A restart keeps the loaded weights; it drops the old sequence's speculative decoder, so
    // speculation (when on) starts again on the new sequence. A backend without restart reopens.
    if (backend_ && backend_->restart()) {
      spec_ = start_speculation(*backend_, opt_.spec, sampler_);
    } else {
      spec_ = nullptr;
      backend_.reset();  // before opening: never two models in memory
      open_backend();
    }
    consumed_.clear();
    state_dropped_ = false;
    st.reopened = true;
  }
  st.kept = consumed_.size();
  st.to_feed = transcript_.size() - consumed_.size();
  const std::span<const int32_t> rest(transcript_.data() + consumed_.size(), st.to_feed);

  const auto t_prefill = clock_type::now();
  std::vector<float> logits;
  if (backend_->chunked_prefill()) {
    if (!stop_requested()) {
      logits = backend_->prefill(rest, eval::logits_rows::last);
      consumed_.insert(consumed_.end(), rest.begin(), rest.end());
      st.fed = rest.size();
      if (ev.prefill_progress) ev.prefill_progress(st.fed, st.to_feed);
    }
  } else {
    for (const int32_t id : rest) {
      if (stop_requested()) break;
      logits = backend_->step(id);
      consumed_.push_back(id);
      ++st.fed;
      if (ev.prefill_progress) ev.prefill_progress(st.fed, st.to_feed);
    }
  }
  st.prefill_seconds = seconds_between(t_prefill, clock_type::now());
  if (st.fed < st.to_feed) {
    // Interrupted while feeding: the turn never happened (the backend's state is now ahead of
    // the transcript, so the next turn starts a fresh one).
    transcript_.resize(rollback);
    st.stop = stop_reason::interrupted;
    st.transcript_tokens = transcript_.size();
    return st;
  }

  stop_matcher stops(opt_.stop);
  decode_events dev;
  dev.text = ev.text;
  dev.stop_requested = stop_requested;
  const decode_result r = decode(*backend_, *tok_, std::move(logits), sampler_, stops,
                                 {opt_.max_tokens, opt_.context, transcript_.size(), spec_}, dev);
  consumed_.insert(consumed_.end(), r.tokens.begin(), r.tokens.begin() + std::ptrdiff_t(r.steps));
  if (spec_) st.spec = spec_->stats();
  st.generated = r.tokens.size();
  st.decode_steps = r.steps;
  st.decode_seconds = r.decode_seconds;
  if (r.first_token) st.first_token_seconds = seconds_between(t_prefill, *r.first_token);
  st.stop = r.stop;
  st.stop_string = r.stop_string;
  if (r.stop == stop_reason::interrupted && r.tokens.empty()) {
    transcript_.resize(rollback);
  } else {
    transcript_.insert(transcript_.end(), r.tokens.begin(), r.tokens.end());
    transcript_.push_back(tok_->eos_id());  // the assistant turn ends here (fed with the next turn)
  }
  st.transcript_tokens = transcript_.size();
  return st;
}

}  // namespace ordo::generate
