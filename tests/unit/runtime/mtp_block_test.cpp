// The MTP block on the engine's families (include/ordo/runtime/mtp_block.hpp, mtp_step.hpp)
// against the double-precision reference's MTP (ref::mtp_forward), on the tiny synth model with
// ds4's type mix, in both file conventions: ds4 naming (mtp.0.* sidecar: e_proj, h_proj, own HC
// head and norm) and llama naming (the MTP block as blk.n_layer with nextn.eh_proj and the main
// output HC head, D4). Each MTP row is fed the engine's own inputs (the target's final HC state
// of the previous position, D1), the reference's MTP state the same inputs at every earlier row
// (D2: a row per position), so the comparison measures the block, not the target.
//
// Tolerance, derived like layer_reference_test's (e_q = 0.012858, the relative error of a q8_32
// activation block): the mixer's input H = e_proj·enorm(e) + h_proj·hnorm(h) has one quantized
// matmul per term, relative error ≤ e_q ≤ 4·e_q; the block's layer adds ≤ 4·e_q of its own
// contribution (layer_reference_test); the head maps a relative hidden error to the same relative
// logit error with the whole-model factor 3. So the whole-model bound with two stages:
// max |Δz| ≤ 3 · 2 · 4 · e_q · rms(z_ref).
// A second check: a catch-up batch of n rows gives every row the bits of the rows fed one at a
// time (E1 through the block), logits and output states.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "eval/ref_loader.hpp"
#include "ordo/ref/forward.hpp"
#include "ordo/runtime/mtp_block.hpp"
#include "ordo/runtime/session.hpp"
#include "reference_inputs.hpp"
#include "synth_files.hpp"

namespace ordo::runtime {
namespace {

constexpr double e_q = 0.012858;

using test::to_ref;
using test::tokens;

void agrees_with_reference(model::ds4_naming naming, const char* stem) {
  const auto f = test::write_tiny(naming, stem, gguf::ggml_type::q8_0, gguf::ggml_type::q8_0);
  const model_weights w = model_weights::open(f.main, f.mtp);
  ASSERT_NE(w.mtp(), nullptr);
  const gguf::file g = gguf::file::open(f.main);
  std::optional<gguf::file> gm;
  if (!f.mtp.empty()) gm.emplace(gguf::file::open(f.mtp));
  const eval::ref_model r = eval::load_ref_model(g, gm ? &*gm : nullptr);
  const auto& h = w.hparams();
  const auto& c = r.config;
  session_options o;
  o.ctx = 256;
  session s(w, o);
  mtp_block mtp(s);
  ref::mtp_state rs{ref::make_layer_state(c, 0)};
  const auto seq = tokens(150, h.n_vocab, 23);  // the ring (window 16 + slack) wraps several times
  const double bound = 3.0 * 2 * 4 * e_q;
  double worst = 0, worst_hidden = 0;
  std::vector<float> h_prev;
  for (std::size_t q = 0; q < seq.size(); ++q) {
    if (q >= 1) {
      mtp_outputs out;
      mtp.step(*s.state().mtp(), std::span<const int32_t>(&seq[q], 1), h_prev.data(), 0, true, out);
      const ref::token_result want = ref::mtp_forward(r.weights, c, 0, rs, seq[q], to_ref(h_prev.data(), h.hc_count, h.n_embd),
                                                      int(q), ref::simulations::all_on());
      const double rms = std::sqrt(want.logits.squaredNorm() / double(want.logits.size()));
      double max_diff = 0;
      for (std::size_t k = 0; k < out.logits.size(); ++k) max_diff = std::max(max_diff, std::abs(double(out.logits[k]) - want.logits[k]));
      worst = std::max(worst, max_diff / rms);
      EXPECT_LE(max_diff, bound * rms) << "position " << q;
      const ref::hc_state got = to_ref(out.hidden.data(), h.hc_count, h.n_embd);
      worst_hidden = std::max(worst_hidden, (got - want.hidden).norm() / want.hidden.norm());
    }
    row_outputs rows;
    s.prefill(std::span<const int32_t>(&seq[q], 1), 1, &rows);
    h_prev = rows.hidden;
  }
  std::printf("%s naming: MTP logits worst max|dz| / rms(z) = %.3g (bound %.3g); output state worst relative error %.3g "
              "over %zu positions\n",
              stem, worst, bound, worst_hidden, seq.size() - 1);
  // Not vacuous: the engine's float32 + Q8 path is not the double reference.
  EXPECT_GT(worst, 0.0);
}

TEST(mtp_block, ds4_sidecar_agrees_with_the_reference_mtp) { agrees_with_reference(model::ds4_naming::ds4, "mtp_ds4"); }
TEST(mtp_block, llama_nextn_block_agrees_with_the_reference_mtp) { agrees_with_reference(model::ds4_naming::llama, "mtp_llama"); }

TEST(mtp_block, a_catch_up_batch_gives_each_row_the_bits_of_the_row_alone) {
  const auto f = test::write_tiny(model::ds4_naming::ds4, "mtp_batch", gguf::ggml_type::q8_0, gguf::ggml_type::q8_0);
  const model_weights w = model_weights::open(f.main, f.mtp);
  const auto& h = w.hparams();
  session_options o;
  o.ctx = 256;
  session s(w, o);
  const auto seq = tokens(60, h.n_vocab, 5);
  row_outputs rows;
  s.prefill(seq, 0, &rows);
  // Rows for positions 1 … 59: token q with h_{q−1}.
  const std::size_t HC = h.hc_dim();
  const std::span<const int32_t> toks(seq.data() + 1, seq.size() - 1);
  session a(w, o), b(w, o);  // two fresh MTP rings
  mtp_block ma(a), mb(b);
  mtp_outputs batch, last;
  // a: chunks of 5 and 16 rows alternating; b: one row at a time.
  std::size_t i = 0;
  for (std::size_t n : {5u, 16u, 5u, 16u, 5u, 12u}) {
    mtp_outputs part;
    ma.step(*a.state().mtp(), toks.subspan(i, n), rows.hidden.data() + i * HC, HC, i + n == toks.size(), part);
    batch.hidden.insert(batch.hidden.end(), part.hidden.begin(), part.hidden.end());
    if (!part.logits.empty()) batch.logits = part.logits;
    i += n;
  }
  ASSERT_EQ(i, toks.size());
  std::vector<float> one_hidden;
  for (std::size_t k = 0; k < toks.size(); ++k) {
    mb.step(*b.state().mtp(), toks.subspan(k, 1), rows.hidden.data() + k * HC, HC, k + 1 == toks.size(), last);
    one_hidden.insert(one_hidden.end(), last.hidden.begin(), last.hidden.end());
  }
  ASSERT_EQ(batch.hidden.size(), one_hidden.size());
  EXPECT_EQ(std::memcmp(batch.hidden.data(), one_hidden.data(), one_hidden.size() * sizeof(float)), 0);
  ASSERT_EQ(batch.logits.size(), last.logits.size());
  EXPECT_EQ(std::memcmp(batch.logits.data(), last.logits.data(), last.logits.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace ordo::runtime
