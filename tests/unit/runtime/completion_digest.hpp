// The E5 hash gate's completion (issue 11), shared by the CPU gate (hash_gate_test.cpp) and the
// GPU one (tests/gpu/engine): SHA-256 over the token ids and every logit row of a 200-token
// greedy (T = 0) completion of a 40-token prompt on a session of either executor.
#pragma once
#include <string>
#include <vector>

#include "ordo/runtime/session.hpp"
#include "sha256.hpp"

namespace ordo::runtime::test {

// The digest of the tiny synth model with ds4's type mix (write_tiny(ds4, …, q8_0, q8_0)),
// produced by hash_gate_test at the commit that added it (cpu-release, x86-64). Every executor,
// chunking, run and build of a preset must give it; a change of the engine's numerics on purpose
// changes it in the same commit, saying why.
inline constexpr const char* recorded_completion_digest = "a2e3d77f3b57f2dbeb9766b44ab9681e1996eb29ac5b1168fc46e743e367e0fe";

inline std::string completion_digest(const model_weights& w, uint32_t chunk, executor_kind executor = executor_kind::cpu,
                                     memory_kind memory = memory_kind::host) {
  std::vector<int32_t> prompt(40);
  for (std::size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int32_t>((i * 37 + 11) % w.hparams().n_vocab);
  session_options o;
  o.ctx = 512;
  o.executor = executor;
  o.alloc.memory = memory;
  session s(w, o);
  std::vector<float> z = s.prefill(prompt, chunk);
  sha256 digest;
  for (int k = 0; k < 200; ++k) {
    int32_t best = 0;
    for (std::size_t i = 1; i < z.size(); ++i)
      if (z[i] > z[best]) best = static_cast<int32_t>(i);
    digest.add(&best, sizeof best);
    digest.add(z.data(), z.size() * sizeof(float));
    z = s.decode(best);
  }
  return digest.hex();
}

}  // namespace ordo::runtime::test
