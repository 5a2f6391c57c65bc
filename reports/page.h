#pragma once
// What the run writers are given: the run, where it was read from, and its history's trends.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "reports/console.h"

namespace pperf {

/// One run's figures of one pair, for a trend chart.
struct TrendPoint {
  int64_t run_id = 0;  // 0: the run the report is about, not (yet) in the history
  std::string started_at, git_sha;
  double median_ms = 0;
  std::optional<double> usd_per_step;
};

/// A pair's series across runs (oldest first) and where its levels change.
struct TrendSeries {
  std::string label;  // "workload/preset/batch configuration"
  std::vector<TrendPoint> points;
  std::vector<size_t> median_changes, cost_changes;  // indices into points where a new level begins
};

struct RunReportPage {
  const RunReport* run = nullptr;
  std::string source;                // the results file (or "history run N")
  std::vector<TrendSeries> trends;   // empty without --history
  std::string history_note;          // e.g. "12 complete runs of 'x' on host ab12 in F"
  ConsoleOptions console;            // for the console writer (reports/writer.h)
};

}  // namespace pperf
