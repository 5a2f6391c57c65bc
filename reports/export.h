#pragma once
// Exports of a run for other tools: Google Benchmark's JSON (so google/benchmark's compare.py and
// dashboards built for it read pperf runs). CSV is reports/writers.h's to_csv.
#include <nlohmann/json.hpp>

#include "bench/core/result.h"

namespace pperf {

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

}  // namespace pperf
