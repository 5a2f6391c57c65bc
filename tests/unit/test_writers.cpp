#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "src/core/atomic_file.h"
#include "src/core/results_json.h"
#include "src/stats/intervals.h"
#include "src/stats/stats.h"
#include "pricing/cost_model.h"
#include "reports/formats.h"
#include "test_helpers.h"

using namespace pperf;

namespace {
RunReport sample_report() {
  RunReport report;
  report.tool_version = "0.1.0";
  report.git_sha = "abc";
  report.command = "run";
  report.config_name = "c";
  report.host = {{"hostname", "h"}};
  report.started_at = "2026-11-22T00:00:00Z";
  report.pricing_table = "aws-ec2-us-east-1";
  report.pricing_currency = "USD";
  report.pricing_market = "on_demand";

  Result base;
  base.workload = "mnist_heavy";
  base.preset = "tiny";
  base.batch_size = 10;
  base.configuration = "a";
  base.baseline = true;
  base.measured = true;
  base.instances = {PricedGroup{"p3.2xlarge", 1, "dnn", Market::on_demand, 3.06, "on_demand"}};
  Measurement m;
  m.step_ms = {10, 12, 11, 10, 13, 11};
  m.data_wait_ms = {1, 1, 1, 1, 1, 1};
  base.samples_per_step = 10;
  base.step = step_time_estimate(m.step_ms);
  const Summary s = summarize(m.step_ms);
  base.spread = StepTimeSpread{s.mean, s.stdev, s.cv, s.p5, s.p95};
  base.samples_per_s = m.samples_per_s(10);
  base.data_wait_fraction = m.data_wait_fraction();
  base.measurement = m;
  CostInput in;
  in.groups = base.instances;
  in.step = *base.step;
  in.samples_per_step = 10;
  base.cost = price(in);
  base.model = ModelInfo{75338, 1e6, "fp32"};
  base.data = DataInfo{"fashion-mnist", "/x", 60000};
  base.execution = ExecutionReport{1, 1, 1, 1, DataMode::local, 1};

  Result failed = base;
  failed.configuration = "b, \"quoted\"";
  failed.baseline = false;
  failed.status = ResultStatus::failed;
  failed.reason = "boom";
  failed.measurement.reset();
  failed.step.reset();
  failed.spread.reset();
  failed.samples_per_s.reset();
  failed.data_wait_fraction.reset();
  failed.cost.reset();
  report.results = {base, failed};
  return report;
}
}  // namespace

TEST(JsonWriter, HasEveryContractField) {
  nlohmann::json j = to_json(sample_report());
  EXPECT_EQ(j["schema_version"], 1);
  for (const char* key : {"tool", "config", "host", "started_at", "status", "pricing", "results"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"table", "source", "retrieved", "region", "currency", "market"})
    EXPECT_TRUE(j["pricing"].contains(key)) << key;
  const auto& r = j["results"][0];
  for (const char* key : {"workload", "preset", "batch_size", "configuration", "baseline", "measured", "status",
                          "instances", "step_time_ms", "throughput", "data_wait_fraction", "cost",
                          "improvement_pct", "improvement_pct_ci95", "speedup", "model", "data", "execution"})
    EXPECT_TRUE(r.contains(key)) << key;
  for (const char* key : {"median", "mean", "stdev", "cv", "p5", "p95", "ci95", "mean_ci95", "ci_nominal_level",
                          "lag1_autocorrelation", "n", "samples"})
    EXPECT_TRUE(r["step_time_ms"].contains(key)) << key;
  for (const char* key : {"usd_per_hour", "usd_per_step", "usd_per_1m_samples", "samples_per_usd", "usd_per_step_ci95"})
    EXPECT_TRUE(r["cost"].contains(key)) << key;
  EXPECT_EQ(r["step_time_ms"]["n"], 6);
  EXPECT_DOUBLE_EQ(r["step_time_ms"]["median"].get<double>(), 11.0);
  EXPECT_DOUBLE_EQ(r["data_wait_fraction"].get<double>(), 6.0 / 67.0);
  EXPECT_TRUE(r["improvement_pct"].is_null());
  EXPECT_EQ(r["instances"][0]["usd_per_hour"], 3.06);
  const auto& f = j["results"][1];
  EXPECT_EQ(f["status"], "failed");
  EXPECT_EQ(f["reason"], "boom");
  EXPECT_TRUE(f["cost"].is_null());
  EXPECT_TRUE(f["step_time_ms"].is_null());
}

TEST(CsvWriter, OneQuotedRowPerResult) {
  std::string csv = to_csv(sample_report());
  std::vector<std::string> lines;
  std::stringstream in(csv);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("workload,preset,batch_size,configuration,", 0), 0u);
  EXPECT_NE(lines[0].find("step_ms_median"), std::string::npos);
  EXPECT_NE(lines[0].find("usd_per_step"), std::string::npos);
  // Median 11 over 6 steps: too few for an interval, so its CI fields are empty.
  EXPECT_NE(lines[1].find(",11,,,6,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("\"b, \"\"quoted\"\"\""), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find(",failed,"), std::string::npos);
}

TEST(AtomicFile, ReplacesWholeAndLeavesNoTemporaries) {
  pperf::testing::TempDir dir;
  const std::string path = dir.path() + "/sub/out.json";
  write_file_atomically(path, "first");
  write_file_atomically(path, "second");
  std::ifstream in(path);
  std::string contents((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(contents, "second");
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir.path() + "/sub")) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
  EXPECT_THROW(write_file_atomically("/proc/pperf-cannot-write/x", "x"), std::exception);
}
