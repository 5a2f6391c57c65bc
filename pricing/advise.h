#pragma once
// The advisor: ranks every priced configuration of some results files by expected USD to
// train. On-Demand rows price the same groups On-Demand; Spot rows use the Spot model
// (re-estimated when a step count other than the file's is asked for).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/core/advice.h"
#include "src/core/result.h"

namespace pperf {

struct AdviseOptions {
  std::string market = "both";         // "on_demand" | "spot" | "both"
  std::optional<int64_t> steps;        // else each result's own steps to train
};

/// `runs`: (file, report) pairs. Throws InputError naming --steps when a priced result has no
/// steps to train and none is given.
Advice advise(const std::vector<std::pair<std::string, RunReport>>& runs, const AdviseOptions& options);

/// The Spot estimate of `r` for `steps` steps (r.spot re-run with the same rates, checkpoint
/// cost, restart overhead and seed; the interval re-derived unless the config gave it).
SpotEstimate respot(const Result& r, int64_t steps);

}  // namespace pperf
