#pragma once
// A sweep's race as the results file records it (docs/results.md "sweep"): replayed from the
// points' measured rounds and prices by the race rule (src/stats/race.h), so the record says
// exactly what the measuring loop decided, and a results file can be re-read and re-checked.
#include <nlohmann/json.hpp>

#include <vector>

#include "src/config/config.h"
#include "src/core/result.h"

namespace pperf {

/// The `sweep` object for priced `results` of `config` (null when the config has no sweep):
/// its axes, and per workload the race (rounds, why it ended, the best point, the points
/// equivalent to it, the measured seconds and those saved against every point measuring every
/// round) and every point sorted by cost per sample with its verdict, its cost interval, its
/// cost over the best's and, if eliminated, the round it left and the interval then.
nlohmann::json sweep_report(const Config& config, const std::vector<Result>& results);

}  // namespace pperf
