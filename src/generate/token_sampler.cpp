#include "generate/token_sampler.hpp"

#include <stdexcept>

#include "ordo/ops/sampling/sampling.hpp"
#include "ordo/registry/table.hpp"

namespace ordo::generate {

token_sampler::token_sampler(const ops::sampling::settings& s) : settings_(s) {
  if (!ops::sampling::valid(s))
    throw std::invalid_argument(
        "sampler settings out of range (--temp finite, --top-k >= 0, --top-p in (0, 1], --min-p in [0, 1])");
  run_ = registry::find<ops::sampling::op>(s.temperature > 0.0f ? "sampling.r1.sample" : "sampling.r1.greedy").run_cpu;
}

std::int32_t token_sampler::choose(std::span<const float> logits, std::uint64_t position) const {
  std::int32_t token = -1;
  run_(ops::sampling::problem{logits.data(), logits.size(), &token, int(logits.size()), 1, settings_, &position});
  return token;
}

}  // namespace ordo::generate
