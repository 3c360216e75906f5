// `ordo eval`'s library: ORDL round trips and rejection of damaged files, token-id parsing, and
// the greedy loop (each generated token is the previous row's argmax, lowest id on ties, and is
// fed back) on a scripted backend whose logits are known in advance.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "eval/backend.hpp"
#include "eval/eval.hpp"
#include "eval/ordl.hpp"

namespace ordo::eval {
namespace {

namespace fs = std::filesystem;

TEST(EvalOrdl, RoundTripsAndRejectsDamage) {
  const fs::path p = fs::temp_directory_path() / "ordo_eval_test.ordl";
  ordl d;
  d.n_vocab = 3;
  d.tokens = {5, -1};
  d.logits = {1.5f, -2.0f, 0.25f, 7.0f, 8.0f, 9.0f};
  write_ordl(p, d);
  EXPECT_EQ(fs::file_size(p), 16u + 2 * 4 + 6 * 4);
  const ordl r = read_ordl(p);
  EXPECT_EQ(r.n_vocab, 3u);
  EXPECT_EQ(r.tokens, d.tokens);
  EXPECT_EQ(r.logits, d.logits);
  fs::resize_file(p, fs::file_size(p) - 1);
  EXPECT_THROW(read_ordl(p), std::runtime_error);
  {
    std::ofstream o(p, std::ios::binary);
    o << "NOPE";
  }
  EXPECT_THROW(read_ordl(p), std::runtime_error);
  d.logits.pop_back();
  EXPECT_THROW(write_ordl(p, d), std::runtime_error);
  fs::remove(p);
}

TEST(EvalTokens, ParsesCommasAndSpacesAndNamesBadItems) {
  EXPECT_EQ(parse_token_ids("1,2, 3\n4", "x"), (std::vector<int32_t>{1, 2, 3, 4}));
  try {
    parse_token_ids("1,x2", "--prompt-ids");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--prompt-ids: 'x2'"), std::string::npos);
  }
  EXPECT_THROW(parse_token_ids("-3", "x"), std::invalid_argument);
}

// Logits row after token t: ones everywhere except (t + 1) % V, which is 2; ties elsewhere.
class scripted final : public backend {
 public:
  std::vector<int32_t> fed;
  std::string_view name() const override { return "scripted"; }
  uint32_t n_vocab() const override { return 5; }
  std::vector<float> step(int32_t t) override {
    fed.push_back(t);
    std::vector<float> row(5, 1.0f);
    row[(t + 1) % 5] = 2.0f;
    return row;
  }
};

TEST(EvalGreedy, FeedsBackTheArgmaxAndRecordsEveryRow) {
  scripted b;
  const ordl d = evaluate(b, {3, 0}, 3);
  EXPECT_EQ(d.tokens, (std::vector<int32_t>{3, 0, 1, 2, 3}));
  EXPECT_EQ(b.fed, d.tokens);
  EXPECT_EQ(d.logits.size(), 5u * 5u);
  EXPECT_EQ(argmax(std::vector<float>{1, 3, 3, 0}), 1);  // lowest id among equals
  EXPECT_THROW(evaluate(b, {}, 1), std::invalid_argument);
  EXPECT_THROW(evaluate(b, {7}, 0), std::invalid_argument);
}

TEST(EvalBackends, UnknownBackendNamesTheAvailableOnes) {
  try {
    make_backend("gpu", {});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("available: ref"), std::string::npos);
  }
}

}  // namespace
}  // namespace ordo::eval
