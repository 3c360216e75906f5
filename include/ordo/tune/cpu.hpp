/// Tuning for the CPU executor build (cpu-* presets): the defaults — every tier and order any GPU
/// preset ships, so the property tests cover their union. Policies are unused by the CPU executor.
#pragma once
#include "ordo/tune/defaults.hpp"

namespace ordo::tune {
struct preset : defaults {
  static constexpr const char* name = "cpu";
};
inline constexpr const char* name = preset::name;
}  // namespace ordo::tune
