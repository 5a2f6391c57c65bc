// Sweeps (docs/config.md "Sweeps"): exact expansions of axes and listed points, the plan's
// refusal of a point the host cannot run naming the sweep's value, and each refusal by its line.
#include <gtest/gtest.h>

#include <functional>

#include "src/config/config.h"
#include "src/config/plan.h"
#include "src/session/sweep_race.h"
#include "src/core/input_error.h"
#include "test_helpers.h"
#include "unit_registry.h"

using namespace pperf;
using nlohmann::json;

namespace {

json sweep_config() {
  return json::parse(R"({
    "name": "t",
    "pricing": {"table": "aws-sagemaker-us-east-1"},
    "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8}],
    "measure": {"warmup_steps": 1, "min_steps": 2, "max_steps": 5},
    "configurations": [
      {"name": "a", "instances": [{"type": "ml.p3.2xlarge"}, {"type": "ml.c5.9xlarge", "count": 1, "role": "data"}],
       "execution": {"threads": 1, "data": {"mode": "service", "spawn_local": {"processes": 1, "workers": 1}}}}
    ],
    "sweep": {"axes": {"threads": [1, 2], "interop_threads": {"from": 1, "to": 3, "step": 2}}}
  })");
}

Config load(const json& config, pperf::testing::TempDir& dir) {
  return load_config(dir.write("c.json", config.dump()), pperf::testing::fixture_workloads());
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

/// The sweep's record as the results file has it, raced in turns of 10 steps (point_result's).
json race_record(const Config& c, const std::vector<Result>& results) {
  const std::optional<SweepRecord> record =
      sweep_race_record(c, results, settings_for_turns(c.measure.decision, c.measure.max_steps, 10));
  return record ? to_json(*record) : json();
}

std::vector<std::string> names(const Config& c) {
  std::vector<std::string> out;
  for (const auto& x : c.configurations) out.push_back(x.name);
  return out;
}

}  // namespace

TEST(Sweep, GridExpandsEveryCombinationLastAxisFastest) {
  pperf::testing::TempDir dir;
  const Config c = load(sweep_config(), dir);
  ASSERT_TRUE(c.sweep);
  // Axes in the file's order (the test's writer sorts keys): interop_threads (1, 3), then threads.
  EXPECT_EQ(names(c), (std::vector<std::string>{"interop_threads=1,threads=1", "interop_threads=1,threads=2",
                                                "interop_threads=3,threads=1", "interop_threads=3,threads=2"}));
  EXPECT_TRUE(c.configurations[0].baseline);
  EXPECT_FALSE(c.configurations[1].baseline);
  EXPECT_EQ(c.configurations[3].execution.threads, 2);
  EXPECT_EQ(c.configurations[3].execution.interop_threads, 3);
  EXPECT_EQ(c.configurations[1].execution.threads, 2);
  EXPECT_EQ(c.configurations[1].execution.interop_threads, 1);
  EXPECT_EQ(c.sweep->axes, (std::vector<std::string>{"interop_threads", "threads"}));
  EXPECT_EQ(c.sweep->values[0], (std::vector<std::string>{"1", "3"}));
  EXPECT_TRUE(c.sweep->grid);
  EXPECT_EQ(c.configurations[2].sweep_values,
            (std::vector<std::pair<std::string, std::string>>{{"interop_threads", "3"}, {"threads", "1"}}));
}

TEST(Sweep, ListedPointsCpusAndDataInstances) {
  json j = sweep_config();
  j["sweep"] = json::parse(R"({"points": [
      {"cpus": [0], "workers": 2, "data_instances": 3},
      {"cpus": [0, 1, 2], "workers": 1, "data_instances": 1},
      {"cpus": "any", "workers": 4, "data_instances": 2},
      {"cpus": [0, 2], "workers": 4, "data_instances": 2}]})");
  pperf::testing::TempDir dir;
  const Config c = load(j, dir);
  EXPECT_EQ(names(c), (std::vector<std::string>{"cpus=0,data_instances=3,workers=2", "cpus=0-2,data_instances=1,workers=1",
                                                "cpus=any,data_instances=2,workers=4", "cpus=0_2,data_instances=2,workers=4"}));
  EXPECT_FALSE(c.sweep->grid);
  const Configuration& first = c.configurations[0];
  EXPECT_EQ(first.execution.cpus, (std::vector<int>{0}));
  // Spawned workers: `workers` is each worker's threads; a data instance is a spawned process.
  EXPECT_EQ(first.execution.data.spawn_local_workers, 2);
  EXPECT_EQ(first.execution.data.spawn_local_processes, 3);
  EXPECT_EQ(first.instances[1].count, 3);
  EXPECT_EQ(first.instances[0].count, 1);
  EXPECT_TRUE(c.configurations[2].execution.cpus.empty());
  // The pricing inputs carry each point's groups (priced with the instances it implies).
  const PricingInputs inputs = pricing_inputs(c);
  EXPECT_EQ(inputs.configurations.at("cpus=0-2,data_instances=1,workers=1").instances[1].count, 1);
  EXPECT_EQ(inputs.configurations.at("cpus=0,data_instances=3,workers=2").instances[1].count, 3);
}

TEST(Sweep, PointTheHostCannotRunNamesTheSweepsValue) {
  json j = sweep_config();
  j["sweep"] = json::parse(R"({"axes": {"cpus": [[0], [0, 1, 2, 3]]}})");
  pperf::testing::TempDir dir;
  const Config c = load(j, dir);
  HostCapacity host;
  host.logical_cpus = 2;
  const Plan plan = make_plan(c, {}, host);
  ASSERT_EQ(plan.items.size(), 2u);
  EXPECT_TRUE(plan.items[0].not_runnable_here.empty());
  ASSERT_EQ(plan.items[1].not_runnable_here.size(), 1u);
  EXPECT_EQ(plan.items[1].not_runnable_here[0].pointer, "/sweep/axes/cpus/1");
  EXPECT_EQ(plan.items[1].not_runnable_here[0].reason, "CPU 2 does not exist here (2 CPUs)");
}

TEST(Sweep, Refusals) {
  EXPECT_EQ(error_of(sweep_config(), [](json& j) { j["sweep"]["axes"]["thread"] = json::array({1}); }),
            "/sweep/axes/thread: unknown axis 'thread' (did you mean 'threads'?); known: threads, interop_threads, cpus, "
            "workers, prefetch_batches, data_instances, batch_size, precision");
  EXPECT_EQ(error_of(sweep_config(), [](json& j) { j["sweep"]["axes"]["batch_size"] = json::array({8}); }), "");
  // 2 x 5 x 7 = 70 > 64.
  EXPECT_EQ(error_of(sweep_config(),
                     [](json& j) {
                       j["sweep"]["axes"] = json::parse(R"({"threads": [1, 2], "workers": {"from": 1, "to": 5},
                                                              "prefetch_batches": {"from": 1, "to": 7}})");
                     }),
            "/sweep/axes: the grid has more than 64 points (7 x 2 x 5): list the points wanted under 'points', or narrow an axis");
  EXPECT_EQ(error_of(sweep_config(), [](json& j) { j["sweep"]["axes"]["threads"] = json::array({1, 1}); }),
            "/sweep/axes/threads/1: duplicate value 1 of axis 'threads'");
  EXPECT_EQ(error_of(sweep_config(), [](json& j) { j["sweep"]["axes"]["threads"] = json::array({0}); }),
            "/sweep/axes/threads/0: must be a positive integer, got 0");
  EXPECT_EQ(error_of(sweep_config(), [](json& j) { j["sweep"]["axes"]["cpus"] = json::parse(R"({"from": 1, "to": 2})"); }),
            "/sweep/axes/cpus: cpus takes a list of CPU sets (e.g. [[0], [0, 1], \"any\"]), not a range");
  EXPECT_EQ(error_of(sweep_config(), [](json& j) { j["sweep"]["points"] = json::array({json{{"threads", 2}}}); }),
            "/sweep/points: give 'axes' (every combination) or 'points' (these), not both");
  EXPECT_EQ(error_of(sweep_config(),
                     [](json& j) {
                       j["configurations"].push_back(j["configurations"][0]);
                       j["configurations"][1]["name"] = "b";
                       j["configurations"][0]["baseline"] = true;
                     }),
            "/sweep: a sweep varies one configuration, and this config has 2: give exactly one under /configurations");
  EXPECT_EQ(error_of(sweep_config(),
                     [](json& j) {
                       j["configurations"][0]["instances"].erase(1);
                       j["configurations"][0]["execution"]["data"] = json{{"mode", "local"}};
                       j["sweep"]["axes"] = json{{"data_instances", json::array({1, 2})}};
                     }),
            "/sweep/axes/data_instances: configuration 'a' has no instance group with role 'data' to count");
  EXPECT_EQ(error_of(sweep_config(), [](json& j) { j["sweep"]["axes"]["interop_threads"]["to"] = 0; }),
            "/sweep/axes/interop_threads/to: must be a positive integer, got 0");
  EXPECT_EQ(error_of(sweep_config(), [](json& j) { j["sweep"]["axes"]["interop_threads"] = json{{"from", 3}, {"to", 2}}; }),
            "/sweep/axes/interop_threads/to: must be >= from (3)");
  // The boundary: 64 points load.
  EXPECT_EQ(error_of(sweep_config(),
                     [](json& j) {
                       j["sweep"]["axes"] = json::parse(R"({"threads": {"from": 1, "to": 8}, "workers": {"from": 1, "to": 8}})");
                     }),
            "");
}

namespace {
/// A measured, priced result of `rounds` rounds of 10 steps at `ms` (each round's steps x
/// (1 + 0.01 * wobble), the wobble fixed per round), at `usd_per_hour` for 8 samples a step.
Result point_result(const std::string& name, double ms, size_t rounds, double usd_per_hour) {
  static const double wobble[] = {0.3, -1, 0.8, -0.2, 1, -0.7, 0.1, -0.4, 0.6, -0.9};
  Result r;
  r.workload = "mnist_heavy";
  r.configuration = name;
  r.samples_per_step = 8;
  r.measurement = Measurement{};
  r.measurement->turns.schedule = Schedule::interleaved;
  r.measurement->turns.round_steps = 10;
  for (size_t j = 0; j < rounds; ++j)
    for (int s = 0; s < 10; ++s) r.measurement->step_ms.push_back(ms * (1 + 0.01 * wobble[(j * 7 + static_cast<size_t>(name.back())) % 10]));
  r.cost = Cost{};
  r.cost->usd_per_hour = usd_per_hour;
  r.cost->usd_per_1m_samples = usd_per_hour * ms / 3.6e6 / 8 * 1e6;
  return r;
}
}  // namespace

TEST(Sweep, ReportReplaysTheRaceAndCountsTheTimeSaved) {
  json j = sweep_config();
  j["sweep"] = json::parse(R"({"axes": {"threads": [1, 2, 3]}})");
  j["measure"]["max_steps"] = 200;  // 20 rounds of 10 steps: the budget the points below ran out
  pperf::testing::TempDir dir;
  const Config c = load(j, dir);
  // threads=2 is twice as slow: the race dropped it at its first look (the decision's min_rounds).
  const size_t first_look = DecisionSettings{}.min_rounds;
  const std::vector<Result> results = {point_result("threads=1", 100, 20, 4), point_result("threads=2", 200, first_look, 4),
                                       point_result("threads=3", 100.5, 20, 4)};
  const json report = race_record(c, results);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["axes"], json::parse(R"([{"name": "threads", "values": ["1", "2", "3"]}])"));
  const json& race = report["races"][0];
  EXPECT_EQ(race["rounds"], 20);
  EXPECT_DOUBLE_EQ(race["comparison_confidence"].get<double>(), 0.975);
  EXPECT_TRUE(race["best"] == "threads=1" || race["best"] == "threads=3");
  // Sorted by cost per sample: the eliminated point last.
  const json& out = race["points"][2];
  EXPECT_EQ(out["configuration"], "threads=2");
  EXPECT_EQ(out["verdict"], "eliminated");
  EXPECT_EQ(out["left_after_round"], first_look);
  EXPECT_EQ(out["values"], json::parse(R"({"threads": "2"})"));
  ASSERT_TRUE(out["cost_ratio_bounds"].is_array());
  EXPECT_LT(out["cost_ratio_bounds"][0].get<double>(), 2.0);
  EXPECT_GT(out["cost_ratio_bounds"][1].get<double>(), 2.0);
  // It measured first_look rounds and missed the rest of the 20: saved = its seconds per round x those.
  double slow_s = 0, all_s = 0;
  for (const auto& r : results)
    for (double x : r.measurement->step_ms) (r.configuration == "threads=2" ? slow_s : all_s) += x / 1000;
  all_s += slow_s;
  const double saved = slow_s / first_look * (20 - first_look);
  EXPECT_NEAR(race["saved_s"].get<double>(), saved, 1e-9);
  EXPECT_NEAR(race["measured_s"].get<double>(), all_s, 1e-9);
  EXPECT_NEAR(race["saved_fraction"].get<double>(), saved / (all_s + saved), 1e-12);
  // A budget of 40 rounds: every point saved the rounds it did not take, the slow one capped at
  // max_seconds (60 s, measured 2 s a round: 30 rounds' worth).
  j["measure"]["max_steps"] = 400;
  pperf::testing::TempDir longer;
  const json race40 = race_record(load(j, longer), results)["races"][0];
  double saved40 = 0;
  for (const auto& r : results) {
    double s = 0;
    for (double x : r.measurement->step_ms) s += x / 1000;
    const double rounds = static_cast<double>(r.measurement->step_ms.size()) / 10;
    saved40 += std::min(s / rounds * 40, 60.0) - s;
  }
  EXPECT_NEAR(race40["saved_s"].get<double>(), saved40, 1e-9);
  EXPECT_NEAR(saved40, 20.0 + 20.1 + (60 - slow_s), 0.2) << "the fast points' 20 rounds, the slow one to 60 s";
  // Without a sweep there is no report.
  json plain = sweep_config();
  plain.erase("sweep");
  plain["configurations"][0]["baseline"] = true;
  plain["configurations"][0]["baseline"] = true;
  pperf::testing::TempDir other;
  EXPECT_TRUE(race_record(load(plain, other), results).is_null());
}

TEST(Sweep, ReportWithoutTurnsNamesTheCheapestUndecided) {
  json j = sweep_config();
  j["sweep"] = json::parse(R"({"axes": {"threads": [1, 2]}})");
  pperf::testing::TempDir dir;
  const Config c = load(j, dir);
  std::vector<Result> results = {point_result("threads=1", 100, 5, 4), point_result("threads=2", 90, 5, 4)};
  for (auto& r : results) r.measurement->turns = Turns{};  // --sequential: no rounds
  const json race = race_record(c, results)["races"][0];
  EXPECT_EQ(race["rounds"], 0);
  EXPECT_EQ(race["best"], "threads=2");
  EXPECT_EQ(race["finished"], false);
  EXPECT_EQ(race["points"][0]["verdict"], "best");
  EXPECT_EQ(race["points"][1]["verdict"], "undecided");
  EXPECT_EQ(race["saved_s"], 0.0);
}

TEST(Sweep, RangesStepAndStayInside) {
  json j = sweep_config();
  j["sweep"] = json::parse(R"({"axes": {"threads": {"from": 2, "to": 9, "step": 3}}})");
  pperf::testing::TempDir dir;
  EXPECT_EQ(names(load(j, dir)), (std::vector<std::string>{"threads=2", "threads=5", "threads=8"}));
  // A step near the integers' end neither overflows nor loops.
  j["sweep"]["axes"]["threads"] = json{{"from", 1}, {"to", INT64_MAX - 1}, {"step", INT64_MAX - 2}};
  pperf::testing::TempDir other;
  EXPECT_EQ(load(j, other).configurations.size(), 2u);
  EXPECT_EQ(error_of(sweep_config(), [](json& c) { c["sweep"]["axes"]["threads"] = json{{"from", 1}, {"to", 65}}; }),
            "/sweep/axes/threads: more than 64 values");
}

TEST(Sweep, OnlyPicksPointsByTheirNamesDespiteTheCommas) {
  pperf::testing::TempDir dir;
  const Config c = load(sweep_config(), dir);
  HostCapacity host;
  host.logical_cpus = 4;
  // --only splits at every comma; the pieces join back into the points' names.
  PlanFilter filter;
  filter.configurations = {"interop_threads=3", "threads=2", "interop_threads=1", "threads=1"};
  EXPECT_EQ(only_names(c, filter.configurations), (std::vector<std::string>{"interop_threads=3,threads=2", "interop_threads=1,threads=1"}));
  const Plan plan = make_plan(c, filter, host);
  ASSERT_EQ(plan.items.size(), 2u);
  EXPECT_EQ(plan.items[0].configuration->name, "interop_threads=1,threads=1");  // config order
  EXPECT_EQ(plan.items[1].configuration->name, "interop_threads=3,threads=2");
  // A name given whole (pperf project's baseline) is one piece.
  EXPECT_EQ(only_names(c, {"interop_threads=1,threads=2"}), (std::vector<std::string>{"interop_threads=1,threads=2"}));
  // An unknown point is named as written, with the nearest point.
  try {
    only_names(c, {"interop_threads=1", "threads=9"});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--only: no configuration 'interop_threads=1,threads=9' in ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("(did you mean 'interop_threads=1,threads=1'?)"), std::string::npos) << e.what();
  }
  // An unknown piece after a known point: only that piece.
  try {
    only_names(c, {"interop_threads=1", "threads=1", "threads=4"});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--only: no configuration 'threads=4' in ", 0), 0u) << e.what();
  }
}

namespace {
/// The fixture's mnist_heavy and a workload with a precision to choose (fp32 or bf16), as
/// vit_synthetic has.
const WorkloadRegistry& with_precision() {
  static const WorkloadRegistry registry = [] {
    WorkloadRegistry r;
    r.add(*pperf::testing::fixture_workloads().find("mnist_heavy"));
    WorkloadDescriptor d;
    d.name = "vit_fixture";
    d.presets = {{"tiny", "", 64}};
    d.params = {{"precision", "string", "fp32", "", {"fp32", "bf16"}}, {"lr", "number", 0.001, "", {}}};
    r.add(d);
    return r;
  }();
  return registry;
}

json precision_config() {
  return json::parse(R"({
    "name": "t",
    "pricing": {"table": "aws-sagemaker-us-east-1"},
    "workloads": [{"name": "vit_fixture", "preset": "tiny", "batch_size": 4, "params": {"lr": 0.01}}],
    "measure": {"warmup_steps": 1, "min_steps": 2, "max_steps": 5},
    "configurations": [{"name": "a", "instances": [{"type": "ml.c5.9xlarge"}], "execution": {"threads": 1}}],
    "sweep": {"axes": {"batch_size": [8, 16], "precision": ["fp32", "bf16"]}}
  })");
}

/// The error line after `mutate` of precision_config(), without the file's path; "" when it loads.
std::string precision_error(const std::function<void(json&)>& mutate) {
  pperf::testing::TempDir dir;
  json config = precision_config();
  mutate(config);
  const std::string path = dir.write("c.json", config.dump());
  try {
    load_config(path, with_precision());
  } catch (const InputError& e) {
    return std::string(e.what()).substr(path.size() + 2);
  }
  return "";
}
}  // namespace

TEST(Sweep, BatchSizeAndPrecisionPointsRunTheWorkloadWithTheirValues) {
  pperf::testing::TempDir dir;
  const Config c = load_config(dir.write("c.json", precision_config().dump()), with_precision());
  EXPECT_EQ(names(c), (std::vector<std::string>{"batch_size=8,precision=fp32", "batch_size=8,precision=bf16",
                                                "batch_size=16,precision=fp32", "batch_size=16,precision=bf16"}));
  HostCapacity host;
  host.logical_cpus = 4;
  const Plan plan = make_plan(c, {}, host);
  ASSERT_EQ(plan.items.size(), 4u);
  // The config's workload entry is untouched; each item runs it with its point's values, the
  // other params kept, and counts its own samples per step (the race compares per sample).
  EXPECT_EQ(c.workloads[0].batch_size, 4);
  EXPECT_EQ(c.workloads[0].params["precision"], "fp32");
  const PlanItem& last = plan.items[3];
  EXPECT_EQ(last.workload->batch_size, 16);
  EXPECT_EQ(last.workload->params["precision"], "bf16");
  EXPECT_EQ(last.workload->params["lr"], 0.01);
  EXPECT_EQ(last.samples_per_step(), 16);
  EXPECT_EQ(last.result_skeleton().batch_size, 16);
  EXPECT_EQ(plan.items[0].workload->batch_size, 8);
  EXPECT_EQ(plan.items[0].workload->params["precision"], "fp32");
  // A copy of an item (the plan's vector grows, the session keeps items) still points at its own spec.
  const PlanItem copy = plan.items[1];
  EXPECT_EQ(copy.workload, plan.items[1].workload);
  EXPECT_EQ(copy.workload->params["precision"], "bf16");
  // A configuration written out runs the entry itself.
  json plain = precision_config();
  plain.erase("sweep");
  plain["configurations"][0]["baseline"] = true;
  const Config p = load_config(dir.write("p.json", plain.dump()), with_precision());
  EXPECT_EQ(make_plan(p, {}, host).items[0].workload, &p.workloads[0]);
}

TEST(Sweep, BatchSizeAndPrecisionValuesTheWorkloadCannotRunAreRefusedAtTheValue) {
  EXPECT_EQ(precision_error([](json&) {}), "");
  EXPECT_EQ(precision_error([](json& j) { j["sweep"]["axes"]["precision"] = {"fp32", "fp16"}; }),
            "/sweep/axes/precision/1: workload 'vit_fixture' cannot run precision 'fp16' (did you mean 'fp32'?); it runs fp32, bf16");
  EXPECT_EQ(precision_error([](json& j) { j["sweep"]["axes"]["batch_size"] = {8, 0}; }),
            "/sweep/axes/batch_size/1: must be a positive integer, got 0");
  EXPECT_EQ(precision_error([](json& j) { j["sweep"]["axes"]["precision"] = {{"from", 1}, {"to", 2}}; }),
            "/sweep/axes/precision: precision takes a list of names (e.g. [\"fp32\", \"bf16\"]), not a range");
  EXPECT_EQ(precision_error([](json& j) { j["workloads"][0] = {{"name", "mnist_heavy"}, {"preset", "tiny"}, {"batch_size", 8}}; }),
            "/sweep/axes/precision: workload 'mnist_heavy' has no precision to choose (no 'precision' param): the axis "
            "'precision' would change nothing");
  EXPECT_EQ(precision_error([](json& j) {
              j["sweep"].erase("axes");
              j["sweep"]["points"] = {{{"batch_size", 8}}, {{"precision", "tf32"}}};
            }),
            "/sweep/points/1/precision: workload 'vit_fixture' cannot run precision 'tf32' (did you mean 'fp32'?); it runs fp32, bf16");
}
