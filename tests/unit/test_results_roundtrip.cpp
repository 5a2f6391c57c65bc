// The results record written and read back (issue 45): every member, optional ones set and
// unset, comes back equal. The plain members are generated from the records' field rows
// (src/core/json_fields.h: kResultFields, kCostFields, kDecisionFields, ...), so a new row is
// covered without a new test; the members written by hand (a priced group's and a cost's Spot
// range among them: a reader that dropped them passed every other test, the golden files having
// none) are set one by one below. Reading refuses an inconsistent record naming the JSON pointer.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include "test_helpers.h"
#include "src/core/input_error.h"
#include "src/core/json_view.h"
#include "src/core/results_json.h"

using namespace pperf;
using nlohmann::json;

namespace {
std::string golden_text() {
  std::ifstream in(pperf::testing::source_dir() + "/tests/data/results/run_tiny.json");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A measured, priced, decided result with every optional record present: the base each
/// member is varied on.
Result full_result() {
  const RunReport report = results_from_json(json::parse(golden_text()), "run_tiny.json");
  Result r = report.results.at(1);  // "spot": measured, priced against the baseline
  r.instances.at(0).usd_per_hour_range = std::array<double, 2>{0.21, 0.29};
  r.instances.at(0).cheapest_zone = "us-east-1a";
  r.instances.at(0).dearest_zone = "us-east-1f";
  r.cost->usd_per_hour_range = std::array<double, 2>{0.21, 0.29};
  r.decision.emplace();
  r.decision->verdict = CostVerdict::cheaper;
  r.decision->looks = 9;
  r.execution->gpu.emplace();
  r.execution->math.emplace();
  r.execution->device = "cuda:0";
  r.memory.emplace();
  r.memory->limit_bytes = 1 << 30;
  r.memory->bound = "polled";
  r.memory->processes.push_back({"trainer", 1234, 1 << 20});
  return r;
}

Result read_back(const json& written) { return read_result(JsonView(written, "r.json")); }

// A distinct, valid value for the i-th row's member.
void set_distinct(double& v, int i) { v = 1000.25 + i; }
void set_distinct(int64_t& v, int i) { v = 7 + i; }
void set_distinct(bool& v, int) { v = !v; }
void set_distinct(std::string& v, int i) { v = "value " + std::to_string(i); }
void set_distinct(std::array<double, 2>& v, int i) { v = {10.0 + i, 20.5 + i}; }
void set_distinct(std::vector<double>& v, int i) { v = {1.5, 2.5 + i}; }
void set_distinct(std::vector<std::string>& v, int i) { v = {"a", "b" + std::to_string(i)}; }
void set_distinct(std::optional<bool>& v, int) { v = !v.value_or(false); }
template <typename T>
void set_distinct(std::optional<T>& v, int i) {
  set_distinct(v.emplace(), i);
}

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

/// One row of `Record` (reached in a Result through `part`): set, it is written and read back
/// equal; an optional one unset is read back unset. Either way the record reads back whole:
/// nothing left over in unknown_fields, and written again it is the same JSON.
template <typename Record, typename T, typename Part>
void check_row(const JsonField<Record, T>& field, int i, const Part& part, const std::string& record) {
  const std::string where = record + "." + field.key;
  const Result base = full_result();
  Result set = base;
  set_distinct(part(set).*(field.member), i);
  const json written = to_json(set);
  EXPECT_TRUE(written != to_json(base)) << where << ": set to a new value, it must be written";
  const Result back = read_back(written);
  EXPECT_EQ(part(back).*(field.member), part(set).*(field.member)) << where;
  EXPECT_EQ(back.unknown_fields, json::object()) << where;
  EXPECT_EQ(to_json(back), written) << where;
  if constexpr (is_optional<T>::value) {
    Result unset = base;
    (part(unset).*(field.member)).reset();
    const json written_unset = to_json(unset);
    const Result back_unset = read_back(written_unset);
    EXPECT_FALSE(part(back_unset).*(field.member)) << where << " unset";
    EXPECT_EQ(to_json(back_unset), written_unset) << where << " unset";
  }
}

template <typename Record, typename... T, typename Part>
void check_rows(const std::tuple<JsonField<Record, T>...>& fields, const Part& part, const std::string& record) {
  int i = 0;
  std::apply([&](const auto&... f) { (check_row(f, i++, part, record), ...); }, fields);
}

/// The error line of reading `doc` after `mutate`, without the file name; "" if it reads.
std::string error_of(const std::function<void(json&)>& mutate) {
  json doc = json::parse(golden_text());
  mutate(doc);
  try {
    results_from_json(doc, "r.json");
  } catch (const InputError& e) {
    return std::string(e.what()).substr(std::string("r.json: ").size());
  }
  return "";
}
}  // namespace

TEST(ResultsRoundTrip, EveryRowOfEveryRecordSetAndUnset) {
  check_rows(kResultFields, [](auto& r) -> auto& { return r; }, "result");
  check_rows(kCostFields, [](auto& r) -> auto& { return *r.cost; }, "cost");
  check_rows(kDecisionFields, [](auto& r) -> auto& { return *r.decision; }, "decision");
  check_rows(kGpuUtilizationFields, [](auto& r) -> auto& { return *r.execution->gpu; }, "execution.gpu_utilization");
  check_rows(kMathSettingsFields, [](auto& r) -> auto& { return *r.execution->math; }, "execution.math");
}

// The members written by hand: the full record reads back as the same JSON with nothing left
// over, and the optional ones that had no golden file to carry them compare member by member.
TEST(ResultsRoundTrip, TheFullRecordAndTheMembersWrittenByHand) {
  const Result full = full_result();
  const json written = to_json(full);
  const Result back = read_back(written);
  EXPECT_EQ(back.unknown_fields, json::object());
  EXPECT_EQ(to_json(back), written);
  ASSERT_EQ(back.instances.size(), full.instances.size());
  EXPECT_EQ(back.instances[0].usd_per_hour_range, (std::optional<std::array<double, 2>>{{0.21, 0.29}}));
  EXPECT_EQ(back.instances[0].cheapest_zone, "us-east-1a");
  EXPECT_EQ(back.instances[0].dearest_zone, "us-east-1f");
  ASSERT_TRUE(back.cost);
  EXPECT_EQ(back.cost->usd_per_hour_range, (std::optional<std::array<double, 2>>{{0.21, 0.29}}));
  ASSERT_TRUE(back.cost->to_train);
  EXPECT_EQ(back.cost->to_train->steps, full.cost->to_train->steps);
  EXPECT_EQ(back.decision->verdict, CostVerdict::cheaper);
  EXPECT_EQ(back.decision->looks, 9);
  EXPECT_EQ(back.memory->limit_bytes, std::optional<int64_t>(1 << 30));
  EXPECT_EQ(back.memory->processes.at(0).pid, 1234);
  EXPECT_EQ(back.comparison.improvement_pct_ci95, full.comparison.improvement_pct_ci95);
  EXPECT_EQ(back.step->ci95_ms, full.step->ci95_ms);
  EXPECT_EQ(back.step->mean_ci95_ms, full.step->mean_ci95_ms);

  // Unset: a point price has no range, and reads back without one.
  Result point = full;
  point.instances[0].usd_per_hour_range.reset();
  point.instances[0].cheapest_zone = point.instances[0].dearest_zone = "";
  point.cost->usd_per_hour_range.reset();
  const json point_written = to_json(point);
  EXPECT_FALSE(point_written["instances"][0].contains("usd_per_hour_range"));
  EXPECT_FALSE(point_written["cost"].contains("usd_per_hour_range"));
  const Result point_back = read_back(point_written);
  EXPECT_FALSE(point_back.instances[0].usd_per_hour_range);
  EXPECT_FALSE(point_back.cost->usd_per_hour_range);
  EXPECT_EQ(to_json(point_back), point_written);
}

// An interval with lo > hi, or one that does not contain its estimate, is refused naming its
// pointer; equal ends (an estimate at an end) read.
TEST(ResultsRoundTrip, InconsistentRangesAndIntervalsAreRefusedNamingThePointer) {
  EXPECT_EQ(error_of([](json& j) { j["results"][1]["cost"]["usd_per_hour_range"] = {0.29, 0.21}; }),
            "/results/1/cost/usd_per_hour_range: expected [lo, hi] with lo <= hi");
  EXPECT_EQ(error_of([](json& j) { j["results"][1]["cost"]["usd_per_hour_range"] = {0.25, 0.25}; }), "");
  EXPECT_EQ(error_of([](json& j) { j["results"][1]["instances"][0]["usd_per_hour_range"] = {0.29, 0.21}; }),
            "/results/1/instances/0/usd_per_hour_range: expected [lo, hi] with lo <= hi");
  EXPECT_EQ(error_of([](json& j) { j["results"][1]["instances"][0]["usd_per_hour_range"] = {0.21, 0.21}; }), "");

  EXPECT_EQ(error_of([](json& j) {
              json& s = j["results"][0]["step_time_ms"];
              s["ci95"] = {s["ci95"][1], s["ci95"][0]};  // swapped
            }),
            "/results/0/step_time_ms/ci95: expected [lo, hi] with lo <= median (5.075833002105355) <= hi");
  EXPECT_EQ(error_of([](json& j) {
              json& s = j["results"][0]["step_time_ms"];
              s["ci95"] = {std::nextafter(s["median"].get<double>(), 1e9), 6.0};  // just above the estimate
            }),
            "/results/0/step_time_ms/ci95: expected [lo, hi] with lo <= median (5.075833002105355) <= hi");
  EXPECT_EQ(error_of([](json& j) {
              json& s = j["results"][0]["step_time_ms"];
              s["ci95"] = {s["median"], s["median"]};  // the estimate at both ends
            }),
            "");
  EXPECT_EQ(error_of([](json& j) {
              json& s = j["results"][2]["step_time_ms"];
              s["mean_ci95"] = {4.0, std::nextafter(s["mean"].get<double>(), 0.0)};  // just below the estimate
            })
                .rfind("/results/2/step_time_ms/mean_ci95: expected [lo, hi] with lo <= mean (", 0),
            0u);
  EXPECT_EQ(error_of([](json& j) {
              json& s = j["results"][2]["step_time_ms"];
              s["mean_ci95"] = {s["mean"], s["mean"]};
            }),
            "");
}
