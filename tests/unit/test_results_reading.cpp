// Reading older or hand-edited results files (issue 28): what pperf accepts and what it refuses,
// in both directions, by exact figures and exact lines.
#include <gtest/gtest.h>

#include <functional>

#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "compare_fixtures.h"

using namespace pperf;
using namespace pperf::testing;
using nlohmann::json;

namespace {

/// A results file of one measured baseline (60 samples: mean 103 ms, median 102 ms) and one
/// given candidate (100 ms), as pperf writes it.
json written() {
  std::vector<double> samples;
  for (int i = 0; i < 60; ++i) samples.push_back(100 + (i % 4) * 2.0);  // 100, 102, 104, 106: mean 103, median 103
  samples[0] = 40;  // one fast outlier: mean 102, median 103
  return to_json(run_report({measured_result("a", samples), given_result("b", 100)}));
}

/// The error line after `edit` (without "r.json: "), "" when the file reads.
std::string error_of(const std::function<void(json&)>& edit, RunReport* out = nullptr) {
  json doc = written();
  edit(doc);
  try {
    RunReport r = results_from_json(doc, "r.json");
    if (out) *out = r;
  } catch (const InputError& e) {
    return std::string(e.what()).substr(std::string("r.json: ").size());
  }
  return "";
}

}  // namespace

TEST(ResultsReading, TheSampleCountMustMatchN) {
  ASSERT_EQ(written()["results"][0]["step_time_ms"]["n"], 60);
  EXPECT_EQ(error_of([](json&) {}), "");
  EXPECT_EQ(error_of([](json& d) { d["results"][0]["step_time_ms"]["n"] = 61; }),
            "/results/0/step_time_ms/n: n differs from the number of samples");
  EXPECT_EQ(error_of([](json& d) { d["results"][0]["step_time_ms"]["n"] = 59; }),
            "/results/0/step_time_ms/n: n differs from the number of samples");
  // A sample dropped by hand with n edited alike reads: n is a check, not a count kept aside.
  RunReport r;
  EXPECT_EQ(error_of([](json& d) {
              auto& s = d["results"][0]["step_time_ms"];
              s["samples"].erase(s["samples"].size() - 1);
              s["n"] = 59;
            }, &r),
            "");
  EXPECT_EQ(r.results[0].measurement->step_ms.size(), 59u);
}

TEST(ResultsReading, NullEstimates) {
  // A given step time from before issue 13 has a null mean: the median stands for it.
  RunReport r;
  EXPECT_EQ(error_of([](json& d) { d["results"][1]["step_time_ms"]["mean"] = nullptr; }, &r), "");
  EXPECT_DOUBLE_EQ(r.results[1].step->mean_ms, 100);
  // A measured result's spread keeps the file's mean (102 ms), not its median (103 ms).
  EXPECT_EQ(error_of([](json&) {}, &r), "");
  EXPECT_DOUBLE_EQ(r.results[0].step->mean_ms, 102);
  EXPECT_DOUBLE_EQ(r.results[0].step->median_ms, 103);
  EXPECT_DOUBLE_EQ(r.results[0].spread->mean_ms, 102);
  // No step time: refused for an ok result, read for a failed one.
  EXPECT_EQ(error_of([](json& d) { d["results"][1]["step_time_ms"] = nullptr; }),
            "/results/1: status ok without step_time_ms");
  EXPECT_EQ(error_of([](json& d) {
              d["results"][1]["step_time_ms"] = nullptr;
              d["results"][1]["status"] = "failed";
              d["results"][1]["reason"] = "out of memory";
            }, &r),
            "");
  EXPECT_FALSE(r.results[1].step);
  EXPECT_EQ(r.results[1].reason, "out of memory");
  // A measurement without step times cannot be read.
  EXPECT_EQ(error_of([](json& d) { d["results"][0]["step_time_ms"] = nullptr; }),
            "/results/0/step_time_ms: a measurement needs step_time_ms");
}

TEST(ResultsReading, OlderFiles) {
  // Before data-parallel ranks a result had no samples_per_step: it was the batch size.
  RunReport r;
  EXPECT_EQ(error_of([](json& d) { d["results"][1].erase("samples_per_step"); }, &r), "");
  EXPECT_EQ(r.results[1].samples_per_step, 32);
  // Another schema version is refused both ways, naming what this pperf reads.
  EXPECT_EQ(error_of([](json& d) { d["schema_version"] = 0; }),
            "/schema_version: schema_version 0 is not supported (this pperf reads 1)");
  EXPECT_EQ(error_of([](json& d) { d["schema_version"] = 2; }),
            "/schema_version: schema_version 2 is not supported (this pperf reads 1)");
}
