// Sequence state (include/ordo/runtime/sequence_state.hpp): a rapidcheck state machine drives
// random interleavings of batched steps, MTP drafts, snapshots and restores against a simple
// model (maps from position to row contents, truncated on restore) and checks after every step
// that every row the state calls visible — raw window, compressor windows being pooled, emitted
// rows — equals the model, including the rows read inside a batched step after it wrote ahead.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "ordo/runtime/sequence_state.hpp"

namespace ordo::runtime {
namespace {

model::ds4_hparams test_hparams() {
  model::ds4_hparams h = model::ds4_flash_hparams();
  h.n_layer = 4;
  h.compress_ratios = {0, 0, 4, 128};
  h.swiglu_clamp_exp.assign(4, 10.0f);
  h.sliding_window = 16;
  h.head_dim = 128;  // narrow rows keep the model small; the layout is width-generic
  h.n_rot = 64;
  h.indexer_dim = 64;
  h.n_mtp = 1;
  return h;
}

// Row contents: a function of a random stamp and the element index, full-width f32 / f16 bits.
float value(uint32_t stamp, uint32_t j) { return static_cast<float>(int32_t(stamp * 2654435761u + j * 40503u)) * 1e-6f; }
uint16_t bits(uint32_t stamp, uint32_t j) { return static_cast<uint16_t>(stamp * 31u + j * 7u); }

struct layer_model {
  int64_t frontier = 0;
  int64_t high_water = 0;  // furthest frontier reached: rows up to it were written
  std::map<int64_t, uint32_t> raw;  // position -> stamp
  std::map<int64_t, uint32_t> attn_in, idx_in;  // position -> stamp of kv/score rows
  std::map<int64_t, uint32_t> attn_out, idx_out;  // compressed row -> stamp
  void truncate(int64_t f) {
    frontier = f;
    for (auto* m : {&raw, &attn_in, &idx_in}) m->erase(m->lower_bound(f), m->end());
  }
};

struct model_t {
  std::vector<layer_model> layers;
  layer_model mtp;
  std::vector<std::vector<int64_t>> snapshots;  // frontiers: layers then mtp
};

using sut_t = sequence_state;
using command = rc::state::Command<model_t, sut_t>;

constexpr uint32_t slack = 16, ctx = 700;

// Expected compressor input rows: the model's, or the initial (kv 0, score −inf) before position 0.
void expect_compressor_row(const compressor_state& c, const std::map<int64_t, uint32_t>& m, int64_t pos) {
  const float* kv = c.kv_row(pos);
  const float* sc = c.score_row(pos);
  const uint32_t w = c.layout().width;
  if (pos < 0) {
    for (uint32_t j = 0; j < w; ++j) {
      RC_ASSERT(kv[j] == 0.0f);
      RC_ASSERT(sc[j] == -std::numeric_limits<float>::infinity());
    }
    return;
  }
  const auto it = m.find(pos);
  RC_ASSERT(it != m.end());
  for (uint32_t j = 0; j < w; ++j) {
    RC_ASSERT(kv[j] == value(it->second, j));
    RC_ASSERT(sc[j] == value(it->second ^ 0x5555u, j));
  }
}

// The rows pooled when position `pos` completes a window (ratio 4: previous and current window).
void expect_window(const compressor_state& c, const std::map<int64_t, uint32_t>& m, int64_t pos) {
  const int64_t r = c.layout().ratio, w = pos / r;
  for (int64_t p = (r == 4 ? w - 1 : w) * r; p <= pos; ++p) expect_compressor_row(c, m, p);
}

void expect_raw(const layer_state& l, const std::map<int64_t, uint32_t>& m, int64_t first, int64_t last) {
  for (int64_t p = first; p <= last; ++p) {
    const auto it = m.find(p);
    RC_ASSERT(it != m.end());
    const uint16_t* row = l.raw_row(p);
    for (uint32_t j = 0; j < l.layout().raw.row_bytes / 2; ++j) RC_ASSERT(row[j] == bits(it->second, j));
  }
}

void expect_visible(const layer_state& l, const layer_model& m) {
  RC_ASSERT(l.frontier() == m.frontier);
  const int64_t f = m.frontier;
  if (f > 0) expect_raw(l, m.raw, l.raw_first_visible(f), f - 1);
  auto rows = [&](const compressor_state* c, const std::map<int64_t, uint32_t>& in, const std::map<int64_t, uint32_t>& out) {
    if (!c) return;
    const int64_t r = c->layout().ratio;
    RC_ASSERT(c->rows_at(f) == f / r);
    for (int64_t i = 0; i < c->rows_at(f); ++i) {
      const float* row = c->out_row(i);
      const uint32_t s = out.at(i);
      for (uint32_t j = 0; j < c->layout().out_width; ++j) RC_ASSERT(row[j] == value(s, j));
    }
    // The live windows: what the next emission will pool.
    const int64_t w = f / r;
    for (int64_t p = (r == 4 ? w - 1 : w) * r; p < f; ++p) expect_compressor_row(*c, in, p);
  };
  rows(l.attn(), m.attn_in, m.attn_out);
  rows(l.indexer(), m.idx_in, m.idx_out);
}

/// One layer step over n rows: batched writes of every row first, then the per-row phase in
/// order (reads of the raw window and the pooled windows, emission of compressed rows).
struct step : command {
  std::size_t layer;
  int64_t n;
  uint32_t stamp;
  explicit step(const model_t& m)
      : layer(*rc::gen::inRange<std::size_t>(0, m.layers.size())),
        n(*rc::gen::inRange<int64_t>(1, slack + 1)),
        stamp(*rc::gen::arbitrary<uint32_t>()) {}
  void checkPreconditions(const model_t& m) const override { RC_PRE(m.layers[layer].frontier + n <= ctx); }
  void apply(model_t& m) const override {
    layer_model& l = m.layers[layer];
    const uint32_t ratio = test_hparams().ratio(uint32_t(layer));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t p = l.frontier + i;
      const uint32_t s = stamp + uint32_t(i) * 977u;
      l.raw[p] = s;
      if (ratio) l.attn_in[p] = s + 1;
      if (ratio == 4) l.idx_in[p] = s + 2;
      if (ratio && (p + 1) % ratio == 0) l.attn_out[(p + 1) / ratio - 1] = s + 3;
      if (ratio == 4 && (p + 1) % 4 == 0) l.idx_out[(p + 1) / 4 - 1] = s + 4;
    }
    // Emitted rows past a restored frontier are overwritten by the next emission of that index.
    l.frontier += n;
    l.high_water = std::max(l.high_water, l.frontier);
  }
  void run(const model_t& m, sut_t& st) const override {
    layer_state& ls = st.layer(layer);
    const layer_model& lm = m.layers[layer];
    const int64_t f = ls.frontier();
    auto fill = [](float* row, uint32_t w, uint32_t s) {
      for (uint32_t j = 0; j < w; ++j) row[j] = value(s, j);
    };
    // Batched stages: every row of the step before any per-row work.
    for (int64_t i = 0; i < n; ++i) {
      const int64_t p = f + i;
      const uint32_t s = stamp + uint32_t(i) * 977u;
      uint16_t* raw = ls.raw_row(p);
      for (uint32_t j = 0; j < ls.layout().raw.row_bytes / 2; ++j) raw[j] = bits(s, j);
      for (auto [c, k] : {std::pair{ls.attn(), 1u}, std::pair{ls.indexer(), 2u}}) {
        if (!c) continue;
        fill(c->kv_row(p), c->layout().width, s + k);
        fill(c->score_row(p), c->layout().width, (s + k) ^ 0x5555u);
      }
    }
    // Per-row phase in order: what row p reads must be its own history, never a later row's.
    layer_model seen = lm;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t p = f + i;
      const uint32_t s = stamp + uint32_t(i) * 977u;
      seen.raw[p] = s;
      expect_raw(ls, seen.raw, ls.raw_first_visible(p), p);
      for (auto [c, in, k] : {std::tuple{ls.attn(), &seen.attn_in, 1u}, std::tuple{ls.indexer(), &seen.idx_in, 2u}}) {
        if (!c) continue;
        (*in)[p] = s + k;
        const int64_t r = c->layout().ratio;
        if ((p + 1) % r != 0) continue;
        expect_window(*c, *in, p);
        fill(c->out_row((p + 1) / r - 1), c->layout().out_width, s + 2 + k);
      }
    }
    ls.advance(n);
    model_t next = m;
    apply(next);
    expect_visible(ls, next.layers[layer]);
  }
  void show(std::ostream& os) const override { os << "step(layer " << layer << ", " << n << " rows)"; }
};

/// One MTP draft row appended to the MTP ring.
struct mtp_draft : command {
  uint32_t stamp = *rc::gen::arbitrary<uint32_t>();
  void checkPreconditions(const model_t& m) const override { RC_PRE(m.mtp.frontier < ctx); }
  void apply(model_t& m) const override {
    m.mtp.raw[m.mtp.frontier++] = stamp;
    m.mtp.high_water = std::max(m.mtp.high_water, m.mtp.frontier);
  }
  void run(const model_t& m, sut_t& st) const override {
    layer_state& l = *st.mtp();
    uint16_t* row = l.raw_row(l.frontier());
    for (uint32_t j = 0; j < l.layout().raw.row_bytes / 2; ++j) row[j] = bits(stamp, j);
    l.advance(1);
    model_t next = m;
    apply(next);
    expect_visible(l, next.mtp);
  }
  void show(std::ostream& os) const override { os << "mtp_draft"; }
};

struct take_snapshot : command {
  void apply(model_t& m) const override {
    std::vector<int64_t> f;
    for (const auto& l : m.layers) f.push_back(l.frontier);
    f.push_back(m.mtp.frontier);
    m.snapshots.push_back(f);
  }
  void run(const model_t& m, sut_t& st) const override {
    const state_snapshot s = st.snapshot();
    for (std::size_t il = 0; il < m.layers.size(); ++il) RC_ASSERT(s.layers[il] == m.layers[il].frontier);
    RC_ASSERT(s.mtp == m.mtp.frontier);
  }
  void show(std::ostream& os) const override { os << "snapshot"; }
};

bool restorable(const model_t& m, const std::vector<int64_t>& f) {
  auto ok = [](const layer_model& l, int64_t to) { return to <= l.frontier && l.high_water - to <= slack; };
  for (std::size_t il = 0; il < m.layers.size(); ++il)
    if (!ok(m.layers[il], f[il])) return false;
  return ok(m.mtp, f.back());
}

/// Restores a recorded snapshot: succeeds exactly when no layer goes more than slack rows below
/// its high-water mark (and none moves forward); a refused restore changes nothing.
struct restore_snapshot : command {
  std::size_t which;
  explicit restore_snapshot(const model_t& m) {
    RC_PRE(!m.snapshots.empty());
    which = *rc::gen::inRange<std::size_t>(0, m.snapshots.size());
  }
  void checkPreconditions(const model_t& m) const override { RC_PRE(which < m.snapshots.size()); }
  void apply(model_t& m) const override {
    const auto f = m.snapshots[which];
    if (!restorable(m, f)) return;
    for (std::size_t il = 0; il < m.layers.size(); ++il) m.layers[il].truncate(f[il]);
    m.mtp.truncate(f.back());
  }
  void run(const model_t& m, sut_t& st) const override {
    const auto& f = m.snapshots[which];
    state_snapshot s{{f.begin(), f.end() - 1}, f.back()};
    const state_snapshot before = st.snapshot();
    if (restorable(m, f)) {
      st.restore(s);
      RC_ASSERT(st.snapshot() == s);
    } else {
      RC_ASSERT_THROWS_AS(st.restore(s), state_error);
      RC_ASSERT(st.snapshot() == before);
    }
    model_t next = m;
    apply(next);
    for (std::size_t il = 0; il < next.layers.size(); ++il) expect_visible(st.layer(il), next.layers[il]);
    expect_visible(*st.mtp(), next.mtp);
  }
  void show(std::ostream& os) const override { os << "restore(" << which << ")"; }
};

RC_GTEST_PROP(sequence_state, random_steps_snapshots_and_restores_match_the_model, ()) {
  const model::ds4_hparams h = test_hparams();
  state_options o;
  o.ctx = ctx;
  o.slack_rows = slack;
  o.alloc = {64, *rc::gen::element<uint64_t>(0, 4, 100)};  // padded strides too
  sequence_state st(plan_sequence_state(h, o));
  model_t m;
  m.layers.resize(h.n_layer);
  rc::state::check(m, st, rc::state::gen::execOneOfWithArgs<step, step, step, mtp_draft, take_snapshot, restore_snapshot>());
}

TEST(sequence_state, layout_sizes_follow_the_model) {
  model::ds4_hparams h = model::ds4_flash_hparams();
  state_options o;
  o.ctx = 8192;
  o.slack_rows = 16;
  o.alloc = {256, 0};
  const sequence_state_layout l = plan_sequence_state(h, o);
  ASSERT_EQ(l.layers.size(), 43u);
  // Raw rows: 512 F16 values = 1024 bytes; ring of window + slack rows.
  EXPECT_EQ(l.layers[0].raw.row_bytes, 1024u);
  EXPECT_EQ(l.layers[0].raw.rows, 128u + 16u);
  EXPECT_FALSE(l.layers[0].attn);
  // Ratio 4 (layer 2): attention rows [8192/4][512] f32, ring of whole windows ≥ 16 + 7 rows.
  ASSERT_TRUE(l.layers[2].attn && l.layers[2].indexer);
  EXPECT_EQ(l.layers[2].attn->rows.rows, 2048u);
  EXPECT_EQ(l.layers[2].attn->rows.row_bytes, 2048u);
  EXPECT_EQ(l.layers[2].attn->width, 1024u);
  EXPECT_EQ(l.layers[2].attn->ring_windows, 6u);
  EXPECT_EQ(l.layers[2].indexer->rows.row_bytes, 512u);
  EXPECT_EQ(l.layers[2].indexer->width, 256u);
  // Ratio 128 (layer 3): [64][512] rows, two windows of 128 (16 + 127 rows needed).
  ASSERT_TRUE(l.layers[3].attn);
  EXPECT_FALSE(l.layers[3].indexer);
  EXPECT_EQ(l.layers[3].attn->rows.rows, 64u);
  EXPECT_EQ(l.layers[3].attn->ring_windows, 2u);
}

TEST(sequence_state, strides_are_allocation_width) {
  model::ds4_hparams h = test_hparams();
  state_options o;
  o.ctx = 64;
  o.alloc = {64, 4};
  const sequence_state_layout l = plan_sequence_state(h, o);
  EXPECT_EQ(l.layers[0].raw.row_bytes, 256u);
  EXPECT_EQ(l.layers[0].raw.stride, 320u);  // 256 + 4 rounded up to 64
  sequence_state st(l);
  EXPECT_EQ(reinterpret_cast<const std::byte*>(st.layer(0).raw_row(1)) -
                reinterpret_cast<const std::byte*>(st.layer(0).raw_row(0)),
            320);
}

TEST(sequence_state, clear_restores_the_initial_state) {
  model::ds4_hparams h = test_hparams();
  state_options o;
  o.ctx = 64;
  sequence_state st(plan_sequence_state(h, o));
  layer_state& l = st.layer(2);
  for (int64_t p = 0; p < 16; ++p) {
    std::fill_n(l.attn()->kv_row(p), l.attn()->layout().width, 1.0f);
    std::fill_n(l.attn()->score_row(p), l.attn()->layout().width, 2.0f);
  }
  l.advance(16);
  st.mtp()->advance(3);
  st.clear();
  EXPECT_EQ(st.snapshot(), (state_snapshot{{0, 0, 0, 0}, 0}));
  EXPECT_EQ(l.high_water(), 0);
  for (int64_t p = -4; p < 16; ++p) {
    EXPECT_EQ(l.attn()->kv_row(p)[0], 0.0f) << p;
    EXPECT_EQ(l.attn()->score_row(p)[0], -std::numeric_limits<float>::infinity()) << p;
  }
}

TEST(sequence_state, refuses_what_it_cannot_address) {
  model::ds4_hparams h = test_hparams();
  state_options o;
  o.ctx = 40;
  o.slack_rows = 4;
  sequence_state st(plan_sequence_state(h, o));
  layer_state& l = st.layer(2);
  EXPECT_THROW(l.raw_row(4), state_error);  // beyond frontier + slack
  EXPECT_NO_THROW(l.raw_row(3));
  l.advance(4);
  const state_snapshot s = st.snapshot();
  l.advance(4);
  l.advance(1);
  EXPECT_THROW(st.restore(s), state_error);  // 5 rows > slack 4
  EXPECT_EQ(st.snapshot().layers[2], 9);
  EXPECT_THROW(l.advance(5), state_error);   // more than a step holds
  EXPECT_THROW(l.attn()->out_row(10), state_error);  // ctx 40 / ratio 4 = 10 rows: 0..9
  try {
    l.raw_row(0);  // left the window (16) and... still visible: frontier 9
    l.raw_row(-1);
    FAIL() << "negative position accepted";
  } catch (const state_error& e) {
    EXPECT_NE(std::string(e.what()).find("layer 2"), std::string::npos) << e.what();
  }
  // Two restores that each undo ≤ slack rows but together go further below the rows written.
  sequence_state st2(plan_sequence_state(h, o));
  layer_state& m = st2.layer(2);
  const state_snapshot s0 = st2.snapshot();
  m.advance(3);
  const state_snapshot s3 = st2.snapshot();
  m.advance(3);
  st2.restore(s3);
  EXPECT_THROW(st2.restore(s0), state_error);  // rows up to 5 were written, 6 > slack 4
  EXPECT_EQ(st2.snapshot(), s3);
  o.ctx = h.context_length + 1;
  EXPECT_THROW(plan_sequence_state(h, o), model::ds4_error);
}

}  // namespace
}  // namespace ordo::runtime
