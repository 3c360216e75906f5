/// Exact MTP speculative decoding (issue 13; DESIGN E3). A round starts from the token t chosen
/// for position P (greedy, or the sampler at T > 0: a pure function of the logits, the seed and
/// the position, D14):
///   1. draft: the MTP block over (t, h_{P−1}) at position P gives d_1 (D1), then chains on its own
///      output state, d_j from (d_{j−1}, H_{j−1}) at P + j − 1, up to the round's width (≤ 5); a
///      draft whose top-2 logit margin is below --spec-margin ends the chain (the margin gate);
///      a draft is the chooser's token on the MTP logits at its position (at T > 0 the same
///      Philox draw as the target's: the closer the two distributions, the likelier equal);
///   2. verify: [t, d_1 … d_w] through the target as one k-row chunk (session::verify: every
///      weight-carrying stage and the head at the k-row tier, so row i has decode's bits, E1);
///      row 0 is t's own evaluation (eval-skip: no separate one-token step);
///   3. accept the longest prefix where d_j equals the chooser's token on row j − 1's logits;
///      commit rows 0 … a, rewind the rest (sequence_state restore, per-layer frontiers);
///   4. re-arm: the MTP ring, rewound past the chain's rows, is fed the committed positions from
///      the verifier's hidden rows — P + 1 … P + a with the accepted drafts, and P + a + 1 with
///      the next token c (the chooser on row a) — one batch whose last row drafts the next round.
/// The committed tokens are therefore the plain-decoding tokens, and every committed row's logits
/// are the plain-decoding logits, bit for bit, whatever the drafts, widths and margins: those
/// only decide how many rows a round costs. Adaptive width: after a rejection the width backs off
/// to the accepted prefix (at least 1); after a full accept of a full-width chain it probes one
/// wider (full acceptance is censored feedback).
///
/// The driver is executor-agnostic: it talks to a `speculative_target` (make_session_target: a
/// session of any executor — cpu, gpu, deferred — and an mtp_block bound to it), never to kernels.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ordo/runtime/mtp_block.hpp"
#include "ordo/runtime/session.hpp"

namespace ordo::runtime {

/// What the driver needs from an engine holding one sequence and its MTP ring.
class speculative_target {
 public:
  virtual ~speculative_target() = default;
  virtual uint32_t n_vocab() const = 0;
  virtual std::size_t hc_dim() const = 0;
  virtual int64_t position() const = 0;   // the target's frontier: the next token's position
  virtual int64_t context() const = 0;    // positions the sequence may hold
  virtual int max_verify_rows() const = 0;
  /// Plain feeding: the tokens at the next positions, chunked; the logits after the last and
  /// every row's final HC state in `rows.hidden`.
  virtual std::vector<float> feed(std::span<const int32_t> tokens, uint32_t chunk, row_outputs& rows) = 0;
  virtual row_outputs verify(std::span<const int32_t> tokens) = 0;
  /// Rewinds the target's every layer to `position` (≤ position()).
  virtual void rewind(int64_t position) = 0;
  /// The MTP ring: rows appended (row r is position r + 1), append, rewind.
  virtual int64_t mtp_rows() const = 0;
  virtual void mtp_step(std::span<const int32_t> tokens, const float* hidden, std::size_t stride, bool head_last,
                        mtp_outputs& out) = 0;
  virtual void mtp_rewind(int64_t rows) = 0;
};

/// A target on the session `s` (which must outlive it; its model needs an MTP block): `s` and an
/// mtp_block bound to it, both on the session's executor.
std::unique_ptr<speculative_target> make_session_target(session& s);

/// The token a chooser picks from the logits predicting `position` (the token's own position).
using token_chooser = std::function<int32_t(std::span<const float> logits, uint64_t position)>;

struct spec_options {
  int width = 0;           // drafts per round; 0: adaptive ("auto")
  int max_width = 5;       // the deepest chain (verify rows ≤ max_width + 1)
  int start_width = 3;     // adaptive: the first round's width
  float margin = 0.0f;     // the margin gate: a draft with top1 − top2 < margin ends the chain
  /// Tests: replaces the drafts before verification (forced accept / reject patterns); the
  /// committed tokens must not depend on it.
  std::function<void(int64_t position, std::vector<int32_t>& drafts)> override_drafts;
};

struct spec_stats {
  uint64_t rounds = 0;
  uint64_t committed = 0;                 // tokens committed by rounds
  uint64_t verify_rows = 0;               // rows verified (drafts + the rounds' own tokens)
  uint64_t mtp_rows = 0;                  // MTP rows run (chains + catch-up)
  std::vector<uint64_t> drafted, accepted;  // [depth − 1]: drafts at depth d, and accepted ones
  std::vector<uint64_t> width_rounds;       // [width]: rounds verified at each width (0: margin gated)
  double seconds = 0;                     // inside rounds
  double draft_seconds = 0, verify_seconds = 0, catch_up_seconds = 0;
};

/// A committed row: the token fed and the logits after it (predicting the next position).
struct committed_row {
  int32_t token;
  std::vector<float> logits;
};

class speculative_decoder {
 public:
  speculative_decoder(speculative_target& t, token_chooser choose, spec_options o);
  /// Plain feeding (a prompt, a plain decode step, a chat turn): the target and the MTP ring's
  /// catch-up for those positions (D2). Returns the logits after the last token.
  std::vector<float> feed(std::span<const int32_t> tokens, uint32_t chunk);
  /// One round from `token`, the chooser's token for position(): returns the committed rows
  /// (≥ 1: `token` itself, then the accepted drafts), each with the logits after it.
  std::vector<committed_row> round(int32_t token);
  /// Drops the last round's committed rows from `position` on (P < position ≤ position()), as if
  /// plain decoding had fed only up to there: the caller stopped before reaching them (a token
  /// limit, a stop string, end of sequence). The state is then plain decoding's.
  void rewind_to(int64_t position);
  int64_t position() const { return t_->position(); }
  const spec_stats& stats() const { return stats_; }
  int current_width() const { return width_; }

 private:
  int draft_width() const;
  speculative_target* t_;
  token_chooser choose_;
  spec_options o_;
  spec_stats stats_;
  int width_;
  std::vector<float> hidden_tail_;  // [hc_dim]: the target's final state of position() − 1
  bool have_tail_ = false;
  // Armed: the MTP row of position() is in the ring, for token armed_token_, with its logits
  // (the next round's first draft) and output state.
  int64_t round_start_ = -1;           // the last round's P, and its verifier's hidden rows
  std::vector<float> round_hidden_;
  bool armed_ = false;
  int32_t armed_token_ = -1;
  mtp_outputs armed_out_;
};

/// stats as the lines `ordo generate/chat/eval` print on stderr.
std::string format_spec_stats(const spec_stats& s);

}  // namespace ordo::runtime
