#pragma once
// Every page in every format, one file a format: console.cpp, csv.cpp, gbench.cpp, html.cpp,
// json.cpp, junit.cpp, markdown.cpp (the run's JSON is src/core/results_json.h, a comparison's
// reports/compare.h). reports/writer.h registers them by name. They format only: nothing here
// measures, prices or decides.
#include <nlohmann/json.hpp>

#include <string>

#include "src/core/advice.h"
#include "src/core/result.h"
#include "reports/compare.h"
#include "reports/console.h"
#include "reports/page.h"

namespace pperf {

// ---- a run (reports/page.h); its console table is reports/console.h's to_console
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

// ---- a comparison
std::string compare_console(const CompareReport& report);
std::string compare_markdown(const CompareReport& report);
/// JUnit XML: one testcase per pair; regressed, missing and failed pairs are failures.
std::string compare_junit(const CompareReport& report);
std::string compare_report_html(const CompareReport& report);

// ---- the advice of `pperf advise`
std::string advice_console(const Advice& advice);
std::string advice_markdown(const Advice& advice);
nlohmann::json advice_json(const Advice& advice);

}  // namespace pperf
