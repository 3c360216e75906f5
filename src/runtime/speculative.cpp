// The speculative driver (include/ordo/runtime/speculative.hpp).
#include "ordo/runtime/speculative.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace ordo::runtime {

namespace {
using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

/// top1 − top2 of a logit row (the MTP's confidence in its draft).
float margin_of(std::span<const float> z) {
  float a = -3.4e38f, b = -3.4e38f;
  for (float v : z) {
    if (v > a) b = a, a = v;
    else if (v > b) b = v;
  }
  return a - b;
}
}  // namespace

speculative_decoder::speculative_decoder(speculative_target& t, token_chooser choose, spec_options o)
    : t_(&t), choose_(std::move(choose)), o_(std::move(o)) {
  if (o_.max_width < 1 || o_.max_width > 5) throw std::invalid_argument("speculation: the width must be 1..5");
  if (o_.width < 0 || o_.width > o_.max_width) throw std::invalid_argument("speculation: the width must be 0 (auto) or 1..5");
  width_ = o_.width ? o_.width : std::clamp(o_.start_width, 1, o_.max_width);
  stats_.drafted.assign(std::size_t(o_.max_width), 0);
  stats_.accepted.assign(std::size_t(o_.max_width), 0);
  stats_.width_rounds.assign(std::size_t(o_.max_width) + 1, 0);
}

std::vector<float> speculative_decoder::feed(std::span<const int32_t> tokens, uint32_t chunk) {
  if (tokens.empty()) throw std::invalid_argument("speculative_decoder::feed: no tokens");
  const int64_t p0 = t_->position();
  // A row armed for position p0 assumed its token; plain feeding recomputes it with the real one.
  if (armed_) t_->mtp_rewind(p0 - 1), armed_ = false;
  round_start_ = -1;  // rewind_to reaches into the last round only
  row_outputs rows;
  std::vector<float> z = t_->feed(tokens, chunk, rows);
  // D2: MTP rows for positions p0 … p0 + n − 1 (position q pairs t_q with h_{q−1}; q = 0 has none).
  const std::size_t HC = t_->hc_dim(), n = tokens.size();
  std::vector<float> hidden;
  hidden.reserve(n * HC);
  std::size_t first = 0;
  if (p0 == 0) first = 1;
  else hidden.insert(hidden.end(), hidden_tail_.begin(), hidden_tail_.end());
  if (n > 1) hidden.insert(hidden.end(), rows.hidden.begin(), rows.hidden.begin() + std::ptrdiff_t((n - 1) * HC));
  if (first < n) {
    if (t_->mtp_rows() != p0 + int64_t(first) - 1)
      throw std::logic_error("speculation: the MTP ring holds " + std::to_string(t_->mtp_rows()) + " rows at position " +
                             std::to_string(p0));
    mtp_outputs out;
    t_->mtp_step(tokens.subspan(first), hidden.data(), HC, false, out);
    stats_.mtp_rows += n - first;
  }
  hidden_tail_.assign(rows.hidden.end() - std::ptrdiff_t(HC), rows.hidden.end());
  have_tail_ = true;
  return z;
}

void speculative_decoder::rewind_to(int64_t position) {
  if (position == t_->position()) return;
  if (round_start_ < 0 || position <= round_start_ || position > t_->position())
    throw std::logic_error("speculative_decoder::rewind_to(" + std::to_string(position) + "): only into the last round's rows (" +
                           std::to_string(round_start_ + 1) + " .. " + std::to_string(t_->position()) + ")");
  const std::size_t HC = t_->hc_dim(), i = std::size_t(position - 1 - round_start_);
  t_->rewind(position);
  t_->mtp_rewind(position - 1);
  armed_ = false;
  hidden_tail_.assign(round_hidden_.begin() + std::ptrdiff_t(i * HC), round_hidden_.begin() + std::ptrdiff_t((i + 1) * HC));
}

int speculative_decoder::draft_width() const {
  const int64_t room = t_->context() - 1 - t_->position();  // verify rows sit at P … P + w
  return int(std::max<int64_t>(0, std::min<int64_t>({width_, int64_t(t_->max_verify_rows()) - 1, room})));
}

std::vector<committed_row> speculative_decoder::round(int32_t token) {
  const auto t_round = clock_type::now();
  const int64_t P = t_->position();
  const std::size_t HC = t_->hc_dim(), V = t_->n_vocab();
  if (!have_tail_) throw std::logic_error("speculative_decoder::round before any token was fed");
  // 1. Draft.
  auto t0 = clock_type::now();
  if (armed_ && armed_token_ != token) t_->mtp_rewind(P - 1), armed_ = false;
  if (!armed_) {
    t_->mtp_step(std::span<const int32_t>(&token, 1), hidden_tail_.data(), HC, true, armed_out_);
    ++stats_.mtp_rows;
  }
  armed_ = false;
  const int w_max = draft_width();
  std::vector<int32_t> drafts;
  {
    mtp_outputs cur = std::move(armed_out_);
    for (int j = 1; j <= w_max; ++j) {
      if (margin_of(cur.logits) < o_.margin) break;
      drafts.push_back(choose_(cur.logits, uint64_t(P + j)));
      if (j == w_max) break;
      mtp_outputs next;
      t_->mtp_step(std::span<const int32_t>(&drafts.back(), 1), cur.hidden.data(), HC, true, next);
      ++stats_.mtp_rows;
      cur = std::move(next);
    }
  }
  if (o_.override_drafts) o_.override_drafts(P, drafts);
  const int w = int(drafts.size());
  if (w > w_max) throw std::logic_error("speculation: the draft override made the chain longer than the round's width");
  stats_.draft_seconds += since(t0);

  // 2. Verify [token, d_1 … d_w].
  t0 = clock_type::now();
  std::vector<int32_t> span{token};
  span.insert(span.end(), drafts.begin(), drafts.end());
  row_outputs rows = t_->verify(span);
  stats_.verify_seconds += since(t0);

  // 3. Accept the longest prefix the chooser agrees with; commit rows 0 … a, rewind the rest.
  int a = 0;
  while (a < w && choose_(std::span<const float>(rows.logits.data() + std::size_t(a) * V, V), uint64_t(P + a + 1)) ==
                      drafts[std::size_t(a)])
    ++a;
#ifdef ORDO_MUTANT_COMMIT_REJECTED_ROW  // mutation check: the first rejected draft is committed too
  if (a < w) ++a;
#endif
  t_->rewind(P + a + 1);
  // 4. Re-arm the MTP ring: rewind the chain's rows (the row of P, from h_{P−1}, stays), feed
  // P + 1 … P + a + 1 from the verifier's hidden rows; the last row drafts the next round.
  t0 = clock_type::now();
  t_->mtp_rewind(P);
  const int32_t next = choose_(std::span<const float>(rows.logits.data() + std::size_t(a) * V, V), uint64_t(P + a + 1));
  std::vector<int32_t> catch_up(drafts.begin(), drafts.begin() + a);
  const bool arm = P + a + 1 < t_->context();  // the next token has a position to take
  if (arm) catch_up.push_back(next);
  if (!catch_up.empty()) {
    t_->mtp_step(catch_up, rows.hidden.data(), HC, arm, armed_out_);
    stats_.mtp_rows += catch_up.size();
    // The next chain recurses on the last row's output state only.
    armed_out_.hidden.erase(armed_out_.hidden.begin(), armed_out_.hidden.end() - std::ptrdiff_t(HC));
  }
  armed_ = arm;
  armed_token_ = next;
  hidden_tail_.assign(rows.hidden.begin() + std::ptrdiff_t(std::size_t(a) * HC),
                      rows.hidden.begin() + std::ptrdiff_t(std::size_t(a + 1) * HC));
  round_start_ = P;
  round_hidden_ = std::move(rows.hidden);
  stats_.catch_up_seconds += since(t0);

  // Statistics and the next width.
  ++stats_.rounds;
  stats_.committed += uint64_t(a) + 1;
  stats_.verify_rows += uint64_t(w) + 1;
  ++stats_.width_rounds[std::size_t(w)];
  for (int j = 0; j < w; ++j) {
    ++stats_.drafted[std::size_t(j)];
    if (j < a) ++stats_.accepted[std::size_t(j)];
    else break;  // depth j + 1 was drafted but nothing past the first rejection counts
  }
  if (!o_.width) {
    if (a < w) width_ = std::max(1, a);
    else if (w == width_) width_ = std::min(width_ + 1, o_.max_width);
  }
  std::vector<committed_row> out;
  out.reserve(std::size_t(a) + 1);
  for (int i = 0; i <= a; ++i)
    out.push_back({span[std::size_t(i)], std::vector<float>(rows.logits.begin() + std::ptrdiff_t(std::size_t(i) * V),
                                                            rows.logits.begin() + std::ptrdiff_t(std::size_t(i + 1) * V))});
  stats_.seconds += since(t_round);
  return out;
}

std::string format_spec_stats(const spec_stats& s) {
  std::string r;
  char buf[256];
  std::snprintf(buf, sizeof buf, "speculation: %llu rounds, %llu tokens, %.2f tokens/round, %.2f verify rows/round",
                (unsigned long long)s.rounds, (unsigned long long)s.committed,
                s.rounds ? double(s.committed) / double(s.rounds) : 0.0,
                s.rounds ? double(s.verify_rows) / double(s.rounds) : 0.0);
  r += buf;
  r += "\n  acceptance per depth:";
  for (std::size_t d = 0; d < s.drafted.size(); ++d) {
    if (!s.drafted[d]) break;
    std::snprintf(buf, sizeof buf, " d%zu %.3f (%llu/%llu)", d + 1, double(s.accepted[d]) / double(s.drafted[d]),
                  (unsigned long long)s.accepted[d], (unsigned long long)s.drafted[d]);
    r += buf;
  }
  r += "\n  rounds per width:";
  for (std::size_t w = 0; w < s.width_rounds.size(); ++w) {
    std::snprintf(buf, sizeof buf, " %zu:%llu", w, (unsigned long long)s.width_rounds[w]);
    r += buf;
  }
  std::snprintf(buf, sizeof buf, "\n  round cost: %.3f ms (draft %.3f, verify %.3f, MTP catch-up %.3f)\n",
                s.rounds ? 1e3 * s.seconds / double(s.rounds) : 0.0, s.rounds ? 1e3 * s.draft_seconds / double(s.rounds) : 0.0,
                s.rounds ? 1e3 * s.verify_seconds / double(s.rounds) : 0.0,
                s.rounds ? 1e3 * s.catch_up_seconds / double(s.rounds) : 0.0);
  r += buf;
  return r;
}

}  // namespace ordo::runtime
