// choose_backend (src/eval/backend_selection.hpp) over fake tables: the builds this machine
// cannot make (a GPU backend with and without a device) are the cases that matter.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "eval/backend_selection.hpp"

namespace {

using ordo::eval::backend_kind;
using ordo::eval::choose_backend;

bool device_yes() { return true; }
bool device_no() { return false; }

const backend_kind ref{"ref", "reference", nullptr, nullptr};
const backend_kind cpu{"cpu", "exact CPU", nullptr, nullptr};
const backend_kind gpu_present{"gpu", "GPU", &device_yes, nullptr};
const backend_kind gpu_absent{"gpu", "GPU", &device_no, nullptr};

std::string auto_pick(const std::vector<backend_kind>& built) { return choose_backend("auto", built).name; }

TEST(backend_selection, auto_prefers_a_present_gpu_then_cpu_then_ref) {
  EXPECT_EQ(auto_pick({ref, cpu, gpu_present}), "gpu");
  EXPECT_EQ(auto_pick({ref, cpu, gpu_absent}), "cpu");
  EXPECT_EQ(auto_pick({ref, gpu_absent}), "ref");
  EXPECT_EQ(auto_pick({ref, cpu}), "cpu");
  EXPECT_EQ(auto_pick({ref}), "ref");
  EXPECT_EQ(choose_backend("auto", std::vector<backend_kind>{ref, cpu, gpu_absent}).note,
            "--backend auto: cpu (no GPU device found)");
  EXPECT_EQ(choose_backend("auto", std::vector<backend_kind>{ref}).note,
            "--backend auto: ref (this build has no gpu or cpu backend)");
}

TEST(backend_selection, an_explicit_backend_is_taken_as_is_or_refused_listing_the_built_ones) {
  EXPECT_EQ(choose_backend("ref", std::vector<backend_kind>{ref, cpu}).name, "ref");
  EXPECT_TRUE(choose_backend("ref", std::vector<backend_kind>{ref, cpu}).note.empty());
  // An explicit gpu is the user's call even without a device: opening it reports that.
  EXPECT_EQ(choose_backend("gpu", std::vector<backend_kind>{ref, gpu_absent}).name, "gpu");
  try {
    choose_backend("gpu", std::vector<backend_kind>{ref, cpu});
    FAIL() << "gpu is not built";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "--backend gpu: not built into this binary (available: auto, cpu, ref)");
  }
  EXPECT_THROW(choose_backend("metal", std::vector<backend_kind>{ref}), std::invalid_argument);
  EXPECT_THROW(choose_backend("", std::vector<backend_kind>{ref}), std::invalid_argument);
}

TEST(backend_selection, this_build_has_ref_and_auto_resolves_to_a_built_backend) {
  const auto names = ordo::eval::backend_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "ref"), names.end());
  const std::string chosen = choose_backend("auto").name;
  EXPECT_NE(std::find(names.begin(), names.end(), chosen), names.end()) << chosen;
}

}  // namespace
