// The registry: a param's default lives once, in its spec; registry mistakes surface when it
// is built, not when a config happens to use them.
#include <gtest/gtest.h>

#include "src/core/workload_registry.h"
#include "unit_registry.h"

using namespace pperf;

namespace {
WorkloadDescriptor with_param(ParamSpec param) {
  WorkloadDescriptor d;
  d.name = "w";
  d.presets = {{"p", "", 4}};
  d.params = {std::move(param)};
  return d;
}
}  // namespace

TEST(Registry, UnknownParamTypeIsAnErrorWhenBuilt) {
  WorkloadRegistry r;
  EXPECT_THROW(r.add(with_param({"x", "integr", 1, "", {}})), std::logic_error);
  EXPECT_THROW(r.add(with_param({"x", "integer", "one", "", {}})), std::logic_error);  // default of another type
  EXPECT_THROW(r.add(with_param({"x", "integer_list", nlohmann::json::array({1.5}), "", {}})), std::logic_error);
  EXPECT_NO_THROW(r.add(with_param({"x", "integer", 1, "", {}})));
  EXPECT_THROW(r.add(with_param({"x", "integer", 1, "", {}})), std::logic_error);  // registered twice
}

TEST(Registry, SpecsAreCompletedFromTheDefaultsInTheParamSpecs) {
  const WorkloadDescriptor& d = *pperf::testing::fixture_workloads().find("mnist_heavy");
  const WorkloadSpec spec = make_workload_spec(d, "", 0, {{"lr", 0.5}}, 7);
  EXPECT_EQ(spec.preset, "full");
  EXPECT_EQ(spec.batch_size, 256);
  EXPECT_EQ(spec.seed, 7u);
  EXPECT_EQ(spec.string_param("data"), "fashion-mnist");
  EXPECT_EQ(spec.string_param("data_dir"), "/usr/share/datasets/fashion-mnist");
  EXPECT_DOUBLE_EQ(spec.number_param("lr"), 0.5);
  EXPECT_THROW(spec.param("undeclared"), std::logic_error);
  EXPECT_THROW(make_workload_spec(d, "huge", 0), std::logic_error);
  EXPECT_THROW(make_workload_spec(d, "tiny", 8, {{"undeclared", 1}}), std::logic_error);
}
