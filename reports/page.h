#pragma once
// What the writers of a page are given beyond its record: a run's source and trends, the
// console's width; the projection's rows to show.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/project/report.h"

namespace pperf {

/// How the console writer fits the terminal.
struct ConsoleOptions {
  size_t width = 0;   // columns available; 0 = no limit (every column)
  bool wide = false;  // every column whatever the width
};

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

/// `pperf project`'s page: the projection and how much of it the table shows.
struct ProjectionPage {
  const project::Projection* projection = nullptr;
  size_t top = 10;        // rows of each workload's table (console, HTML)
  ConsoleOptions console; // the console writer's width (its prose wraps, its intervals give way)
};

}  // namespace pperf
