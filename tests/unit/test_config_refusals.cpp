// Config refusals (issue 28) that Config.Mistakes does not cover, each by its exact line, and the
// boundary values beside them that must load: a check removed, or a boundary moved by one, fails.
#include <gtest/gtest.h>

#include <functional>

#include "src/config/config.h"
#include "src/core/input_error.h"
#include "test_helpers.h"
#include "unit_registry.h"

using namespace pperf;
using nlohmann::json;

namespace {

json measured_config() {
  return json::parse(R"({
    "name": "t",
    "pricing": {"table": "aws-sagemaker-us-east-1"},
    "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8}],
    "measure": {"warmup_steps": 1, "min_steps": 2, "max_steps": 5},
    "configurations": [
      {"name": "a", "baseline": true, "instances": [{"type": "ml.p3.2xlarge"}],
       "execution": {"threads": 1, "data": {"mode": "local", "workers": 1}}},
      {"name": "b", "instances": [{"type": "ml.p3.2xlarge"}]}
    ]
  })");
}

/// Priced-only, with a Spot configuration (aws-ec2-us-east-1 prices Spot).
json spot_config() {
  return json::parse(R"({
    "name": "s", "steps_to_train": 1000,
    "pricing": {"table": "aws-ec2-us-east-1"},
    "workloads": [{"name": "vit_synthetic", "preset": "tiny", "batch_size": 8}],
    "configurations": [
      {"name": "od", "baseline": true, "step_time_ms": 400, "instances": [{"type": "g5.12xlarge"}]},
      {"name": "spot", "step_time_ms": 500, "instances": [{"type": "g5.2xlarge", "count": 4, "market": "spot"}],
       "spot": {"checkpoint_save_s": 10, "checkpoint_restore_s": 20}}
    ]
  })");
}

/// The error line after `mutate`, without the file's path; "" when the config loads.
std::string error_of(json config, const std::function<void(json&)>& mutate) {
  pperf::testing::TempDir dir;
  mutate(config);
  const std::string path = dir.write("c.json", config.dump());
  try {
    load_config(path, pperf::testing::fixture_workloads());
  } catch (const InputError& e) {
    return std::string(e.what()).substr(path.size() + 2);
  }
  return "";
}

json& data_of(json& j) { return j["configurations"][0]["execution"]["data"]; }

}  // namespace

TEST(ConfigRefusals, DataSettingsThatContradictEachOther) {
  const json base = measured_config();
  EXPECT_EQ(error_of(base, [](json& j) { data_of(j)["dataset_kwargs"] = {{"n", 1}}; }),
            "/configurations/0/execution/data/dataset_kwargs: 'dataset_kwargs' needs \"worker\": \"python\"");
  EXPECT_EQ(error_of(base, [](json& j) { data_of(j)["python_path"] = {"lib"}; }),
            "/configurations/0/execution/data/python_path: 'python_path' needs \"worker\": \"python\"");
  EXPECT_EQ(error_of(base, [](json& j) {
              data_of(j) = {{"worker", "python"}, {"dataset", "m:f"}, {"python_path", {"lib", ""}}};
            }),
            "/configurations/0/execution/data/python_path/1: must name a directory");
  EXPECT_EQ(error_of(base, [](json& j) { data_of(j) = {{"worker", "python"}, {"dataset", "m:f"}, {"python_path", {"lib"}}}; }), "");
  EXPECT_EQ(error_of(base, [](json& j) { data_of(j)["endpoints"] = {"host:50051"}; }),
            "/configurations/0/execution/data: 'endpoints' and 'spawn_local' need data mode 'service'");
  EXPECT_EQ(error_of(base, [](json& j) { data_of(j)["spawn_local"] = json::object(); }),
            "/configurations/0/execution/data: 'endpoints' and 'spawn_local' need data mode 'service'");
  EXPECT_EQ(error_of(base, [](json& j) { data_of(j) = {{"mode", "service"}, {"spawn_local", json::object()}, {"tls_ca", "ca.pem"}}; }),
            "/configurations/0/execution/data/tls_ca: tls_ca applies to 'endpoints' (spawned workers listen on loopback)");
  EXPECT_EQ(error_of(base, [](json& j) { data_of(j) = {{"mode", "service"}, {"endpoints", {"h:1"}}, {"tls_ca", ""}}; }),
            "/configurations/0/execution/data/tls_ca: must name a PEM file");
  // Validity does not ask whether the file exists (that is "runnable here?").
  EXPECT_EQ(error_of(base, [](json& j) { data_of(j) = {{"mode", "service"}, {"endpoints", {"h:1"}}, {"tls_ca", "ca.pem"}}; }), "");
}

TEST(ConfigRefusals, CpuListsAndTheirBounds) {
  const json base = measured_config();
  auto cpus = [](json value) { return [value](json& j) { j["configurations"][0]["execution"]["cpus"] = value; }; };
  EXPECT_EQ(error_of(base, cpus(json::array())), "/configurations/0/execution/cpus: needs at least one CPU");
  EXPECT_EQ(error_of(base, cpus({0, 65536})),
            "/configurations/0/execution/cpus/1: CPU 65536 is beyond any host's CPU numbers");
  EXPECT_EQ(error_of(base, cpus({0, 65535})), "") << "65535 is the last CPU number accepted";
}

TEST(ConfigRefusals, KeysThatNeedAnotherKey) {
  EXPECT_EQ(error_of(measured_config(), [](json& j) { j["configurations"][1]["billable_seconds"] = 3600; }),
            "/configurations/1/billable_seconds: billable_seconds needs step_time_ms (a priced-only configuration)");
  EXPECT_EQ(error_of(spot_config(), [](json& j) { j["configurations"][0]["spot"] = {{"checkpoint_save_s", 1}}; }),
            "/configurations/0/spot: spot settings on a configuration without a Spot instance group");
  EXPECT_EQ(error_of(spot_config(), [](json& j) {
              j["workloads"].push_back({{"name", "vit_synthetic"}, {"preset", "tiny"}, {"batch_size", 16}});
            }),
            "/workloads: a priced-only config (step_time_ms given) describes exactly one workload");
  EXPECT_EQ(error_of(measured_config(), [](json& j) { j["configurations"][1]["name"] = ""; }),
            "/configurations/1/name: must not be empty");
  EXPECT_EQ(error_of(measured_config(), [](json& j) { j["configurations"][1]["instances"] = json::array(); }),
            "/configurations/1/instances: needs at least one instance group");
  EXPECT_EQ(error_of(spot_config(), [](json& j) { j["configurations"][1]["spot"]["checkpoint_dir"] = ""; }),
            "/configurations/1/spot/checkpoint_dir: must name a directory");
}

TEST(ConfigRefusals, BoundaryValuesThatLoad) {
  // min_steps == max_steps is one look at max_steps; one more is refused.
  EXPECT_EQ(error_of(measured_config(), [](json& j) { j["measure"]["min_steps"] = 5; }), "");
  EXPECT_EQ(error_of(measured_config(), [](json& j) { j["measure"]["min_steps"] = 6; }),
            "/measure/min_steps: min_steps (6) exceeds max_steps (5)");
  // discount_pct in [0, 100).
  EXPECT_EQ(error_of(measured_config(), [](json& j) { j["pricing"]["discount_pct"] = 0; }), "");
  EXPECT_EQ(error_of(measured_config(), [](json& j) { j["pricing"]["discount_pct"] = 99.5; }), "");
  EXPECT_EQ(error_of(measured_config(), [](json& j) { j["pricing"]["discount_pct"] = -0.5; }),
            "/pricing/discount_pct: must be in [0, 100)");
  // Spot settings are finite numbers >= 0: 0 is a valid restart overhead, save or restore time.
  for (const char* key : {"restart_overhead_s", "checkpoint_save_s", "checkpoint_restore_s", "interruptions_per_month"}) {
    EXPECT_EQ(error_of(spot_config(), [key](json& j) { j["configurations"][1]["spot"][key] = 0; }), "") << key;
    EXPECT_EQ(error_of(spot_config(), [key](json& j) { j["configurations"][1]["spot"][key] = -1; }),
              std::string("/configurations/1/spot/") + key + ": must be a finite number >= 0, got -1")
        << key;
  }
}

TEST(ConfigRefusals, StopCriterionByName) {
  const json base = measured_config();
  EXPECT_EQ(error_of(base, [](json& j) { j["measure"]["stop"] = "budget"; }), "");
  EXPECT_EQ(error_of(base, [](json& j) { j["measure"]["stop"] = "precision"; }), "");
  const std::string wrong = error_of(base, [](json& j) { j["measure"]["stop"] = "budgett"; });
  EXPECT_EQ(wrong.rfind("/measure/stop: ", 0), 0u) << wrong;
  EXPECT_NE(wrong.find("budget"), std::string::npos) << wrong;
}
