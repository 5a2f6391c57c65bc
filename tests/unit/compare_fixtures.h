#pragma once
// Results built from samples for the compare, history and report tests: a measured result is
// summarised and priced the way the measure and price stages do it.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/stats/intervals.h"
#include "src/stats/stats.h"

namespace pperf::testing {

inline Result measured_result(const std::string& configuration, const std::vector<double>& samples,
                              double usd_per_hour = 3.06, const std::string& workload = "mnist_heavy") {
  Result r;
  r.workload = workload;
  r.preset = "tiny";
  r.batch_size = 32;
  r.samples_per_step = 32;
  r.configuration = configuration;
  r.measured = true;
  r.instances = {PricedGroup{"p3.2xlarge", 1, "dnn", Market::on_demand, usd_per_hour, "on_demand"}};
  Measurement m;
  m.step_ms = samples;
  m.data_wait_ms.assign(samples.size(), 0.0);
  m.stop = {StopReason::max_steps, "max_steps (" + std::to_string(samples.size()) + ")"};
  m.executor = "process";
  const Summary s = summarize(samples);
  r.step = step_time_estimate(samples);
  r.spread = StepTimeSpread{s.mean, s.stdev, s.cv, s.p5, s.p95};
  r.samples_per_s = m.samples_per_s(32);
  r.data_wait_fraction = 0;
  r.measurement = m;
  Cost c;
  c.usd_per_hour = usd_per_hour;
  c.usd_per_step = usd_per_hour * s.mean / 3.6e6;
  if (const auto& ci = r.step->mean_ci95_ms)
    c.usd_per_step_ci95 = std::array<double, 2>{usd_per_hour * (*ci)[0] / 3.6e6, usd_per_hour * (*ci)[1] / 3.6e6};
  c.usd_per_1m_samples = c.usd_per_step / 32 * 1e6;
  c.samples_per_usd = 32 / c.usd_per_step;
  r.cost = c;
  return r;
}

/// A result priced from a given step time (pperf cost): no samples.
inline Result given_result(const std::string& configuration, double median_ms, double usd_per_hour = 3.06) {
  Result r = measured_result(configuration, {median_ms}, usd_per_hour);
  r.measured = false;
  r.measurement.reset();
  r.spread.reset();
  r.step = StepTimeEstimate{median_ms, std::nullopt, median_ms, std::nullopt};
  return r;
}

/// Log-normal step times around `median_ms` with coefficient of variation about `cv`.
inline std::vector<double> lognormal_samples(size_t n, double median_ms, double cv, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(median_ms), cv);
  std::vector<double> out(n);
  for (double& v : out) v = d(rng);
  return out;
}

inline std::vector<double> scaled(std::vector<double> v, double factor) {
  for (double& x : v) x *= factor;
  return v;
}

inline RunReport run_report(std::vector<Result> results, const std::string& started_at = "2026-11-22T00:00:00Z") {
  RunReport report;
  report.tool_version = "0.1.0";
  report.git_sha = "0123456789abcdef0123456789abcdef01234567";
  report.command = "run";
  report.config_name = "tiny-run";
  report.config_path = "tests/data/tiny_run.json";
  report.config_sha256 = std::string(64, 'a');
  report.host = {{"hostname", "vm"},
                 {"cpu_model", "Intel(R) Xeon(R) Processor"},
                 {"logical_cpus", 2},
                 {"blas", {{"library", "openblas-pthread"}}},
                 {"torch", {{"libtorch_version", "1.13.0"}}}};
  report.started_at = started_at;
  report.finished_at = started_at;
  report.status = RunStatus::complete;
  report.pricing_table = "aws-ec2-us-east-1";
  report.pricing_source = "test";
  report.pricing_retrieved = "2026-11-22";
  report.pricing_region = "us-east-1";
  report.pricing_currency = "USD";
  report.pricing_market = "on_demand";
  if (!results.empty()) results[0].baseline = true;
  report.results = std::move(results);
  return report;
}

}  // namespace pperf::testing
