#pragma once
// The price stage of measure -> price -> report: fills each result's cost and its comparison
// with the baseline of the same workload. Reads only step-time estimates, never samples.
#include <vector>

#include "bench/config/config.h"
#include "reports/result.h"

namespace pperf {

/// Prices every result that has a step estimate; results whose configuration is the baseline
/// anchor the comparison for their workload. With no priced baseline for a workload (filtered
/// out, or it failed), improvement stays null and the result says why in its events.
void price_results(std::vector<Result>& results, const Config& config);

}  // namespace pperf
