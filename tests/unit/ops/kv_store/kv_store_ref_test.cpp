// kv_store against the double-precision reference (ordo::ref::fp8_kv_roundtrip on dims 0..447,
// then ordo::ref::round_to_f16 on all 512, ds4-model.md §3.4.4–3.4.5) at DS4 dims. The tolerance
// is zero: the float path divides and multiplies only by exact powers of two and rounds only in the
// E4M3 and F16 encoders, which round the same real number the reference rounds, so every stored
// value must equal the reference's exactly (sign of zero included).
#include <gtest/gtest.h>

#include "harness.hpp"
#include "ordo/ref/rounding.hpp"

namespace {

using H = ordo::test::harness<ordo::ops::kv_store::op>;

TEST(KvStoreRef, StoresExactlyTheReferenceRow) {
  const auto& e = ordo::registry::find<ordo::ops::kv_store::op>("kv_store.r4");
  int rows = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    auto c = H::make(512, 448, 4, 0x6b00 + seed);
    c.ring_rows = 256;
    c.first_position = std::int64_t(seed) * 131;
    const auto got = H::run(ordo::test::cpu_backend(), e, c, {0, 1, 2, 3}, H::tight_layout());
    ASSERT_TRUE(got.padding_intact);
    for (int i = 0; i < 4; ++i, ++rows) {
      ordo::ref::vec x(512);
      for (int j = 0; j < 512; ++j) x[j] = c.pool[std::size_t(i)][std::size_t(j)];
      ordo::ref::fp8_kv_roundtrip(x, 448);
      for (int j = 0; j < 512; ++j) {
        const float want = float(ordo::ref::round_to_f16(x[j]));
        std::uint16_t bits;
        std::memcpy(&bits, got.rows[std::size_t(i)].data() + 2 * j, 2);
        const float have = ordo::numeric::f16_to_f32(bits);
        ASSERT_EQ(std::memcmp(&want, &have, 4), 0) << "seed " << seed << " row " << i << " dim " << j << ": " << have
                                                   << " vs " << want;
      }
    }
  }
  std::printf("kv_store: %d rows of 512 equal the reference exactly\n", rows);
}

}  // namespace
