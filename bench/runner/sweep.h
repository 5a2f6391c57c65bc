#pragma once
// The measure stage over a whole config: every (workload x configuration), each in its own
// thread settings with its own data source. One failing pair becomes a failed result and the
// sweep goes on. Torch-free header: the CLI sees only Result records.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "bench/config/config.h"
#include "reports/result.h"

namespace pperf {

struct SweepOptions {
  std::vector<std::string> configurations;  // empty = all
  std::string workload;                     // empty = all
  std::string pperf_binary;  // started as `pperf data-worker` for spawn_local data groups
  bool native = false;       // running on the named instances themselves, not emulated here
};

/// Measures each selected pair; `on_result` gets the results so far after each one (for
/// progress and partial output). Stops early, marking what ran as interrupted, once `stop_requested` is set.
std::vector<Result> run_sweep(const Config& config, const WorkloadRegistry& registry,
                              const SweepOptions& options, const std::atomic<bool>& stop_requested,
                              const std::function<void(const std::vector<Result>&)>& on_result);

/// Results for a priced-only config: the given step times, nothing run.
std::vector<Result> given_step_times(const Config& config);

}  // namespace pperf
