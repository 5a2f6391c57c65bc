#pragma once
// Every page in every format, one file a format: console.cpp, csv.cpp, gbench.cpp, json.cpp,
// junit.cpp, markdown.cpp, and HTML one file a page (html_run.cpp, html_compare.cpp,
// html_projection.cpp over html.h; the run's JSON is src/core/results_json.h). reports/writer.h
// registers them by name. They format only: nothing here measures, prices or decides (the
// comparison's analysis is src/compare).
#include <nlohmann/json.hpp>

#include <string>

#include "src/core/advice.h"
#include "src/core/result.h"
#include "src/compare/compare.h"
#include "reports/page.h"

namespace pperf {

// ---- a run (reports/page.h)
/// The report as the terminal shows it: a table that fits the terminal, what ran where, the
/// states that matter flagged, and one sentence per non-baseline configuration. With a width, the
/// least important columns are dropped until the table fits (configuration, step time, cost,
/// improvement and notes always stay), and the prose under it is wrapped to the width. Columns:
/// reports/columns.h.
std::string to_console(const RunReport& report, const ConsoleOptions& options = {});
/// A sweep's race (RunReport::sweep) as a table per workload sorted by cost per sample, each
/// point on one line with its verdict ("eliminated after round N"; the point it lost to in a note
/// under the table); "" without a sweep. With a width (0: none), the prose is wrapped to it and
/// the cost's CI, then the ratio's bounds, are left out (and said so) until the rows fit.
std::string sweep_table(const std::optional<SweepRecord>& sweep, const std::string& currency, size_t width = 0);
/// A scaling curve (RunReport::scaling) as a table per workload, one row per instance count with
/// its step, throughput, efficiency, price and time and cost per epoch (each with its unit and 95 %
/// CI), then the curve's summary; "" without one. With a width, the step's and throughput's
/// intervals give way until the rows fit (reports/scaling.cpp).
std::string scaling_table(const std::optional<ScalingRecord>& scaling, const std::string& currency, size_t width = 0);
/// A header row of keys (each names its unit: step_ms_median, usd_per_hour, data_wait_fraction),
/// then one row per result; numbers with 10 significant digits, texts quoted, absent values empty.
std::string to_csv(const RunReport& report);
/// Google Benchmark JSON: `context` (date, host, CPUs, plus pperf's provenance) and `benchmarks`.
/// One benchmark name per result, "workload/preset/batch:B/configuration"; each measured step
/// is one repetition (run_type "iteration", iterations 1, real_time = cpu_time = the step time
/// in ms: pperf measures wall time), followed by the aggregates mean, median, stddev and cv
/// (names suffixed _mean, ...). Counters: usd_per_step and samples_per_s of the entry's own time
/// (a repetition's step, the median for the aggregates), then the result's figures that
/// reports/columns.h marks kGbench (data_wait_fraction, usd_per_hour, mfu, ...; absent when
/// null), the same on every entry. A result without samples (pperf cost) is one repetition at
/// its step time; failed and not-run results have no entry.
nlohmann::json to_gbench_json(const RunReport& report);
std::string run_report_html(const RunReportPage& page);
std::string run_report_markdown(const RunReportPage& page);

// ---- a comparison (src/compare)
/// The comparison as JSON (schema in schemas/compare.schema.json, fields in docs/compare.md).
nlohmann::json compare_to_json(const CompareReport& report);
std::string compare_console(const CompareReport& report);
std::string compare_markdown(const CompareReport& report);
/// JUnit XML: one testcase per pair; regressed, missing and failed pairs are failures.
std::string compare_junit(const CompareReport& report);
std::string compare_report_html(const CompareReport& report);

// ---- the projection of `pperf project` (src/project/report.h)
/// The projection as JSON (schemas/projection.schema.json).
nlohmann::json projection_json(const project::Projection& projection);
/// The console text: per workload, the inputs, the cheapest and the knee, the top rows with
/// intervals, the config's own configurations checked, and where the next config is. With a
/// width, the prose is wrapped to it and the rows' intervals (the step's, then the cost's) are
/// left out, and said so, until the rows fit.
std::string projection_console(const ProjectionPage& page);
/// A workload's data-parallel projection (Projection::data_parallel): its inputs, one row per
/// (type, instance count) with units, and the model's check against the measured curve.
std::string data_parallel_console(const project::DataParallelProjection& d, size_t width = 0);
/// A self-contained HTML page: per workload, an SVG chart of USD per 1M samples against data
/// instances per trainer (one line per data type, the knee marked) and the top rows.
std::string projection_html(const ProjectionPage& page);

// ---- the advice of `pperf advise`
std::string advice_console(const Advice& advice);
std::string advice_markdown(const Advice& advice);
nlohmann::json advice_json(const Advice& advice);

}  // namespace pperf
