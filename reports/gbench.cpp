// Google Benchmark JSON of a run (so google/benchmark's compare.py and dashboards built for it
// read pperf runs).
#include "reports/formats.h"

#include <fmt/format.h>

#include "src/stats/stats.h"
#include "reports/columns.h"

namespace pperf {

namespace {
using nlohmann::json;

std::string gbench_date(const std::string& iso) {
  // "2026-11-22T14:47:40Z" -> "2026-11-22T14:47:40+00:00" (google/benchmark's format)
  if (iso.size() == 20 && iso.back() == 'Z') return iso.substr(0, 19) + "+00:00";
  return iso;
}

json entry(const std::string& name, const std::string& run_name, double ms, double usd_per_hour, int64_t samples_per_step) {
  return {{"name", name},
          {"run_name", run_name},
          {"threads", 1},
          {"iterations", 1},
          {"real_time", ms},
          {"cpu_time", ms},
          {"time_unit", "ms"},
          {"usd_per_step", usd_per_hour * ms / 3.6e6},
          {"samples_per_s", ms > 0 ? static_cast<double>(samples_per_step) / (ms / 1000) : 0.0}};
}
/// The result's figures that reports/columns.h shows as counters (the same on each of its entries).
json counters_of(const Result& r) {
  json out = json::object();
  for (const Column& c : result_columns()) {
    if (!(c.shown & kGbench)) continue;
    if (const Figure f = c.read(r); f.value) out[c.key] = *f.value;
  }
  return out;
}
}  // namespace

json to_gbench_json(const RunReport& report) {
  const json& host = report.host;
  json context = {{"date", gbench_date(report.started_at)},
                  {"host_name", host.value("hostname", "unknown")},
                  {"executable", "pperf"},
                  {"num_cpus", host.contains("logical_cpus") && host["logical_cpus"].is_number() ? host["logical_cpus"] : json(0)},
                  {"mhz_per_cpu", 0},
                  {"cpu_scaling_enabled", false},
                  {"caches", json::array()},
                  {"load_avg", json::array()},
                  {"library_build_type", "release"},
                  {"pperf_config", report.config_name},
                  {"pperf_config_sha256", report.config_sha256},
                  {"pperf_git_sha", report.git_sha},
                  {"pperf_version", report.tool_version},
                  {"pperf_pricing_table", report.pricing_table},
                  {"pperf_currency", report.pricing_currency},
                  {"pperf_time_note", "real_time and cpu_time are the wall time of one training step"}};
  json benchmarks = json::array();
  int64_t family = 0;
  for (const auto& r : report.results) {
    if (r.status != ResultStatus::ok || !r.step) continue;
    const std::string name = fmt::format("{}/{}/batch:{}/{}", r.workload, r.preset, r.batch_size, r.configuration);
    const double uph = r.cost ? r.cost->usd_per_hour : 0;
    const std::vector<double> samples =
        r.measurement && !r.measurement->step_ms.empty() ? r.measurement->step_ms : std::vector<double>{r.step->median_ms};
    const auto n = static_cast<int64_t>(samples.size());
    const json counters = counters_of(r);
    for (int64_t i = 0; i < n; ++i) {
      json e = entry(name, name, samples[static_cast<size_t>(i)], uph, r.samples_per_step);
      e["family_index"] = family;
      e["per_family_instance_index"] = 0;
      e["run_type"] = "iteration";
      e["repetitions"] = n;
      e["repetition_index"] = i;
      e.update(counters);
      benchmarks.push_back(e);
    }
    const Summary s = summarize(samples);
    const std::pair<const char*, double> aggregates[] = {
        {"mean", s.mean}, {"median", s.median}, {"stddev", s.stdev}, {"cv", s.cv}};
    for (const auto& [agg, value] : aggregates) {
      json e = entry(name + "_" + agg, name, value, uph, r.samples_per_step);
      e["family_index"] = family;
      e["per_family_instance_index"] = 0;
      e["run_type"] = "aggregate";
      e["repetitions"] = n;
      e["aggregate_name"] = agg;
      if (std::string(agg) == "cv") {
        e["aggregate_unit"] = "percentage";
        e["time_unit"] = "ms";
      }
      // Counters of an aggregate describe the median step, not the aggregate's own value.
      e["usd_per_step"] = uph * s.median / 3.6e6;
      e["samples_per_s"] = static_cast<double>(r.samples_per_step) / (s.median / 1000);
      e.update(counters);
      benchmarks.push_back(e);
    }
    ++family;
  }
  return {{"context", context}, {"benchmarks", benchmarks}};
}

}  // namespace pperf
