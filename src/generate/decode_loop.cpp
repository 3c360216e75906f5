#include "generate/decode_loop.hpp"

#include <stdexcept>
#include <string>

#include "tokenizer/stream_decoder.hpp"

namespace ordo::generate {

decode_result decode(eval::backend& backend, const tokenizer::bpe_tokenizer& tok, std::vector<float> logits,
                     const token_sampler& sampler, stop_matcher& stops, const decode_request& req,
                     const decode_events& ev) {
  using clock = std::chrono::steady_clock;
  decode_result r;
  tokenizer::stream_decoder decoder(tok);
  const auto show = [&](const std::string& s) {
    if (ev.text && !s.empty()) ev.text(s);
  };
  // Why generation must stop before producing another token, if it must.
  const auto limit = [&]() -> std::optional<stop_reason> {
    if (req.max_tokens != unlimited_tokens && r.tokens.size() >= std::size_t(req.max_tokens))
      return stop_reason::token_limit;
    if (req.position + r.tokens.size() >= req.context) return stop_reason::context_full;
    return std::nullopt;
  };
  std::vector<runtime::committed_row> ahead;  // rows of the last round not yet reached
  std::size_t next_ahead = 0;
  while (true) {
    if (const auto l = limit()) {
      r.stop = *l;
      break;
    }
    const int32_t next = sampler.choose(logits, req.position + r.tokens.size());
    if (next == tok.eos_id()) {
      r.stop = stop_reason::end_of_sequence;
      break;
    }
    r.tokens.push_back(next);
    if (!r.first_token) r.first_token = clock::now();
    show(stops.push(decoder.push(next)));
    if (stops.matched()) {
      r.stop = stop_reason::stop_string;
      r.stop_string = *stops.matched();
      break;
    }
    // Feed the token only when another one may follow (the last token costs no step).
    if (const auto l = limit()) {
      r.stop = *l;
      break;
    }
    if (ev.stop_requested && ev.stop_requested()) {
      r.stop = stop_reason::interrupted;
      break;
    }
    const auto t_step = clock::now();
    if (!req.spec) {
      logits = backend.step(next);
    } else if (next_ahead < ahead.size()) {
      if (ahead[next_ahead].token != next)
        throw std::logic_error("speculation committed token " + std::to_string(ahead[next_ahead].token) +
                               " where the sampler chose " + std::to_string(next));
      logits = std::move(ahead[next_ahead++].logits);
    } else {
      ahead = req.spec->round(next);
      next_ahead = 1;
      logits = std::move(ahead[0].logits);
    }
    r.decode_seconds += std::chrono::duration<double>(clock::now() - t_step).count();
    ++r.steps;
    if (ev.logits_row) ev.logits_row(next, logits);
  }
  if (req.spec && next_ahead < ahead.size()) req.spec->rewind_to(int64_t(req.position + r.steps));
  if (r.stop != stop_reason::stop_string) show(stops.push(decoder.flush()) + stops.flush());
  return r;
}

}  // namespace ordo::generate
