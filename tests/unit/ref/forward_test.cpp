// Whole-model properties of the reference that follow from the architecture, not from the code:
// how far information travels between tokens through the raw window and the compressed rows,
// determinism, and that the simulations and the indexer actually act.
#include <gtest/gtest.h>

#include "ordo/ref/ref.hpp"
#include "tiny_model.hpp"

namespace ordo::ref {
namespace {

std::vector<vec> run(const model_weights& m, const config& c, const std::vector<int>& toks, simulations sims) {
  sequence_state st = make_sequence_state(c);
  std::vector<vec> out;
  for (int t : toks) out.push_back(forward_token(m, c, st, t, sims).logits);
  return out;
}

std::vector<int> tokens(int n, int vocab, int seed) {
  std::vector<int> t(n);
  for (int i = 0; i < n; ++i) t[i] = (i * 37 + seed * 11 + (i * i) % 13) % vocab;
  return t;
}

config single_layer(int ratio) {
  config c = testing::tiny_config();
  c.n_layer = 1;
  c.hash_layer_count = 0;
  c.compress_ratios = {static_cast<uint32_t>(ratio)};
  c.indexer_top_k = 1000;  // every compressed row visible: no indexer
  return c;
}

// With one ratio-0 layer, tokens interact only through the raw window: changing token 0 changes
// the logits of positions < window and none after.
TEST(RefForward, RawWindowBoundsTheReach) {
  const config c = single_layer(0);
  const model_weights m = testing::random_model(c, 11, false);
  auto a = tokens(20, c.n_vocab, 1), b = a;
  b[0] = (a[0] + 1) % c.n_vocab;
  const auto la = run(m, c, a, simulations::all_off()), lb = run(m, c, b, simulations::all_off());
  for (int p = 0; p < 20; ++p) {
    const double diff = (la[p] - lb[p]).cwiseAbs().maxCoeff();
    if (p < c.sliding_window) EXPECT_GT(diff, 1e-9) << "pos " << p;
    else EXPECT_EQ(diff, 0.0) << "pos " << p;
  }
}

// Ratio 128: the first compressed row (tokens 0..127) is emitted at position 127 and is visible
// to that same token; between the window and 127 token 0 is out of reach.
TEST(RefForward, Ratio128RowIsVisibleToTheTokenThatCompletesIt) {
  const config c = single_layer(128);
  const model_weights m = testing::random_model(c, 12, false);
  auto a = tokens(130, c.n_vocab, 2), b = a;
  b[0] = (a[0] + 1) % c.n_vocab;
  const auto la = run(m, c, a, simulations::all_off()), lb = run(m, c, b, simulations::all_off());
  for (int p = c.sliding_window; p < 127; ++p) EXPECT_EQ((la[p] - lb[p]).cwiseAbs().maxCoeff(), 0.0) << p;
  for (int p = 127; p < 130; ++p) EXPECT_GT((la[p] - lb[p]).cwiseAbs().maxCoeff(), 1e-9) << p;
}

// Ratio 4 with overlapping windows: token 9 is pooled into rows 2 (tokens 4..11) and 3 (8..15),
// emitted at positions 11 and 15; before 11 (and outside the raw window) token 9 is unseen.
TEST(RefForward, Ratio4RowsAppearAtWindowEnds) {
  config c = single_layer(4);
  c.sliding_window = 2;
  const model_weights m = testing::random_model(c, 13, false);
  auto a = tokens(24, c.n_vocab, 3), b = a;
  b[9] = (a[9] + 1) % c.n_vocab;
  const auto la = run(m, c, a, simulations::all_off()), lb = run(m, c, b, simulations::all_off());
  for (int p = 0; p < 9; ++p) EXPECT_EQ((la[p] - lb[p]).cwiseAbs().maxCoeff(), 0.0) << p;
  EXPECT_GT((la[9] - lb[9]).cwiseAbs().maxCoeff(), 1e-9);   // itself
  EXPECT_GT((la[10] - lb[10]).cwiseAbs().maxCoeff(), 1e-9); // raw window of 2
  for (int p = 11; p < 24; ++p) EXPECT_GT((la[p] - lb[p]).cwiseAbs().maxCoeff(), 1e-9) << p;
}

TEST(RefForward, DeterministicAndFiniteOnEveryLayerKind) {
  const config c = testing::tiny_config();
  const model_weights m = testing::random_model(c, 21);
  const auto t = tokens(40, c.n_vocab, 4);
  const auto l1 = run(m, c, t, simulations::all_on()), l2 = run(m, c, t, simulations::all_on());
  for (std::size_t p = 0; p < t.size(); ++p) {
    EXPECT_TRUE(l1[p].allFinite());
    EXPECT_EQ(l1[p], l2[p]);
  }
}

TEST(RefForward, SimulationsChangeTheLogits) {
  const config c = testing::tiny_config();
  const model_weights m = testing::random_model(c, 22);
  const auto t = tokens(40, c.n_vocab, 5);
  const auto on = run(m, c, t, simulations::all_on()), off = run(m, c, t, simulations::all_off());
  double d = 0;
  for (std::size_t p = 0; p < t.size(); ++p) d = std::max(d, (on[p] - off[p]).cwiseAbs().maxCoeff());
  EXPECT_GT(d, 1e-4);
  for (auto only : {simulations{.kv_fp8 = true, .indexer_fp4 = false, .raw_f16 = false},
                    simulations{.kv_fp8 = false, .indexer_fp4 = true, .raw_f16 = false},
                    simulations{.kv_fp8 = false, .indexer_fp4 = false, .raw_f16 = true}}) {
    const auto one = run(m, c, t, only);
    double e = 0;
    for (std::size_t p = 0; p < t.size(); ++p) e = std::max(e, (one[p] - off[p]).cwiseAbs().maxCoeff());
    EXPECT_GT(e, 0.0);
  }
}

// The indexer selects: with top-k 3 of the ratio-4 layers, later positions differ from a run
// where every compressed row is visible.
TEST(RefForward, IndexerTopKRestrictsTheCompressedRows) {
  config c = testing::tiny_config();
  const model_weights m = testing::random_model(c, 23);
  const auto t = tokens(40, c.n_vocab, 6);
  const auto sel = run(m, c, t, simulations::all_off());
  config all = c;
  all.indexer_top_k = 1000;
  const auto full = run(m, all, t, simulations::all_off());
  // 3 rows exist at position 11 (floor(12/4)); the 4th appears at 15 and selection starts.
  for (int p = 0; p < 15; ++p) EXPECT_EQ(sel[p], full[p]) << p;
  EXPECT_GT((sel[39] - full[39]).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(RefForward, MtpBlockRunsOnTheFinalHiddenState) {
  const config c = testing::tiny_config();
  const model_weights m = testing::random_model(c, 24);
  sequence_state st = make_sequence_state(c);
  mtp_state ms;
  const auto t = tokens(12, c.n_vocab, 7);
  for (int p = 0; p < 12; ++p) {
    const token_result r = forward_token(m, c, st, t[p], simulations::all_off());
    const token_result d = mtp_forward(m, c, 0, ms, t[p], r.hidden, p, simulations::all_off());
    EXPECT_TRUE(d.logits.allFinite());
    EXPECT_EQ(d.logits.size(), c.n_vocab);
  }
  EXPECT_EQ(static_cast<int>(ms.layer.raw.size()), c.sliding_window);
}

TEST(RefForward, RejectsTokensOutsideTheVocabulary) {
  const config c = testing::tiny_config();
  const model_weights m = testing::random_model(c, 25, false);
  sequence_state st = make_sequence_state(c);
  EXPECT_THROW(forward_token(m, c, st, c.n_vocab, simulations::all_off()), std::out_of_range);
}

}  // namespace
}  // namespace ordo::ref
