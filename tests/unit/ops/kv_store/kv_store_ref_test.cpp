// kv_store against the double-precision reference (ordo::ref::fp8_kv_roundtrip on dims 0..447,
// then ordo::ref::round_to_f16 on all 512, ds4-model.md §3.4.4–3.4.5) at DS4 dims. The tolerance
// is zero: the float path divides and multiplies only by exact powers of two and rounds only in the
// E4M3 and F16 encoders, which round the same real number the reference rounds, so every stored
// value must equal the reference's exactly (sign of zero included).
#include <gtest/gtest.h>

#include "kv_store_harness.hpp"
#include "ordo/ref/rounding.hpp"

namespace {

using namespace ordo::test::kv_store;

TEST(KvStoreRef, StoresExactlyTheReferenceRow) {
  const auto& e = ordo::ops::kv_store::find_entry(4);
  int rows = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const auto c = make_case(512, 448, 4, 0x6b00 + seed);
    layout l;
    l.ring_rows = 256;
    l.first_position = std::int64_t(seed) * 131;
    const auto got = run(e, c, {0, 1, 2, 3}, l);
    ASSERT_TRUE(got.padding_intact);
    for (int i = 0; i < 4; ++i, ++rows) {
      ordo::ref::vec x(512);
      for (int j = 0; j < 512; ++j) x[j] = c.pool[std::size_t(i)][std::size_t(j)];
      ordo::ref::fp8_kv_roundtrip(x, 448);
      for (int j = 0; j < 512; ++j) {
        const float want = float(ordo::ref::round_to_f16(x[j]));
        const float have = ordo::numeric::f16_to_f32(got.stored[std::size_t(i)][std::size_t(j)]);
        ASSERT_EQ(std::memcmp(&want, &have, 4), 0) << "seed " << seed << " row " << i << " dim " << j << ": " << have
                                                   << " vs " << want;
      }
    }
  }
  std::printf("kv_store: %d rows of 512 equal the reference exactly\n", rows);
}

}  // namespace
