/// Tuning for NVIDIA Hopper (H100/H200, sm_90; cuda-sm90 preset). 132 SMs, 228 KiB shared memory
/// per SM. The generic qmv kernel keeps the defaults (8 warps per CTA, each staging up to 4352 B
/// of its weight row). The streaming kernel for Q8_0/MXFP4 (ops/qmv/int8_dot_streaming.hpp) reads
/// the `streaming_*` fields: 8 warps per CTA, a ring of 3 window stages per warp (2 windows of 4
/// rows in flight while one is computed), 4 weight rows per warp sharing each activation load (2
/// for MXFP4: its 2048/4096-row expert matrices need more warps than row groups of 4 give; the
/// policy sweep in docs/PERFORMANCE.md, 2026-12-01, measured 26% less time at tier 1 on gate/up).
/// Its launches overlap the kernel before them on the stream (ops/qmv/dependent_launch.hpp,
/// weights_before_wait): the weight stream starts during the predecessor's tail and the launch
/// latency; activations are read only after the predecessor completed.
#pragma once
#include "ordo/tune/sm90_policy.hpp"

namespace ordo::tune {
struct preset : defaults {
  static constexpr const char* name = "sm90";
  struct qmv : defaults::qmv {
    using policy = sm90_qmv_policy;
  };
};
inline constexpr const char* name = preset::name;
}  // namespace ordo::tune
