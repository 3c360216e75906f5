// The synthetic model of `ordo bench` (src/bench/synthetic_model.hpp) against what it stands
// for: with every tensor made by synth's generator it IS the synth file (same tensor table, same
// bytes, same logits from a session); with the large tensors made by random_blocks their bytes
// are random_blocks' for (seed, name) and a session still runs on them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "bench/synthetic_model.hpp"
#include "ordo/runtime/session.hpp"
#include "ordo/synth/random_blocks.hpp"
#include "runtime/synth_files.hpp"

namespace ordo::bench {
namespace {

using runtime::model_weights;
using runtime::weight_view;

synthetic_options tiny_on_cpu() {
  synthetic_options o;
  o.base = synth::preset::tiny;
  o.layout = "f32";  // tiny's own expert type, so the plan is `ordo synth --preset tiny --mtp`'s
  o.gpu = false;
  o.mtp = true;
  return o;
}

std::vector<const weight_view*> views(const model_weights& w) { return w.all(); }

TEST(synthetic_model, all_host_made_it_is_the_synth_file) {
  const auto file = runtime::test::write_tiny(model::ds4_naming::ds4, "bench_synth");
  const model_weights from_file = model_weights::open(file.main, file.mtp);
  const auto m = synthetic_model::build(tiny_on_cpu());
  const auto a = views(from_file), b = views(m->host());
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i]->name, b[i]->name);
    EXPECT_EQ(a[i]->format, b[i]->format) << a[i]->name;
    EXPECT_EQ(a[i]->cols, b[i]->cols) << a[i]->name;
    EXPECT_EQ(a[i]->rows, b[i]->rows) << a[i]->name;
    EXPECT_EQ(a[i]->experts, b[i]->experts) << a[i]->name;
    ASSERT_EQ(a[i]->bytes(), b[i]->bytes()) << a[i]->name;
    EXPECT_EQ(std::memcmp(a[i]->data, b[i]->data, a[i]->bytes()), 0) << a[i]->name << ": bytes differ from the synth file";
  }
  EXPECT_EQ(m->bytes().total, from_file.bytes());

  // The same weights, so a session gives the same logits bit for bit.
  runtime::session s_file(from_file), s_synth(m->host());
  const std::vector<int32_t> prompt{1, 7, 42, 3, 99, 5, 17, 64, 2, 11};
  const std::vector<float> x = s_file.prefill(prompt, 4), y = s_synth.prefill(prompt, 4);
  ASSERT_EQ(x.size(), y.size());
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0);
}

TEST(synthetic_model, large_tensors_are_random_blocks_of_their_name) {
  synthetic_options o = tiny_on_cpu();
  o.layout = "q8_0";
  o.dense = gguf::ggml_type::q8_0;  // moe's q8_0 layout has a q8_0 shared expert
  o.host_made_max = 0;  // every uniform tensor through random_blocks
  const auto m = synthetic_model::build(o);
  const synth::plan plan = [] {
    synth::options so;
    so.base = synth::preset::tiny;
    so.mtp = true;
    so.experts = gguf::ggml_type::q8_0;
    so.dense = gguf::ggml_type::q8_0;
    so.out = "x.gguf";
    return synth::make_plan(so);
  }();
  std::size_t checked = 0;
  for (const auto& f : plan.files)
    for (const auto& t : f.tensors) {
      if (t.init.k != synth::init_recipe::kind::uniform) continue;
      const weight_view* v = nullptr;
      for (const weight_view* w : m->host().all())
        if (w->name == t.spec.name) v = w;
      ASSERT_NE(v, nullptr) << t.spec.name;
      uint64_t n = 1;
      for (uint64_t d : t.spec.dims) n *= d;
      const synth::random_fill req{t.spec.type, n, t.init.stddev, 0, synth::random_fill_key(t.spec.name)};
      std::vector<std::byte> want(synth::random_fill_bytes(req));
      synth::fill_random_cpu(want.data(), req);
      ASSERT_EQ(want.size(), v->bytes()) << t.spec.name;
      EXPECT_EQ(std::memcmp(want.data(), v->data, want.size()), 0) << t.spec.name;
      ++checked;
    }
  EXPECT_GT(checked, 20u);
  runtime::session s(m->host());
  const std::vector<int32_t> prompt{5, 6, 7, 8, 9, 10, 11, 12};
  for (float z : s.prefill(prompt, 8)) ASSERT_TRUE(std::isfinite(z));
}

TEST(synthetic_model, layouts_set_the_expert_types) {
  EXPECT_EQ(synthetic_expert_types("q2").first, gguf::ggml_type::iq2_xxs);
  EXPECT_EQ(synthetic_expert_types("q2").second, gguf::ggml_type::q2_k);
  EXPECT_THROW(synthetic_expert_types("q3"), std::invalid_argument);
  // tiny's expert rows (128) are too short for the 256-element q2 blocks; mxfp4's are 32.
  synthetic_options o = tiny_on_cpu();
  o.layout = "mxfp4";
  o.dense = gguf::ggml_type::q8_0;
  o.n_layer = 3;
  const auto m = synthetic_model::build(o);
  EXPECT_EQ(m->hparams().n_layer, 3u);
  for (const auto& l : m->host().layers()) {
    EXPECT_EQ(l.need(model::ds4_role::ffn_gate_exps).format, gguf::ggml_type::mxfp4);
    EXPECT_EQ(l.need(model::ds4_role::ffn_down_exps).format, gguf::ggml_type::mxfp4);
  }
  runtime::session s(m->host());
  for (float z : s.decode(3)) ASSERT_TRUE(std::isfinite(z));
}

}  // namespace
}  // namespace ordo::bench
