#pragma once
// A sweep's race as the results file records it (src/core/sweep_record.h; docs/results.md
// "sweep"): replayed from the points' measured rounds and prices by the race rule
// (src/stats/race.h) with the settings the measuring loop raced under, so the record says exactly
// what the loop decided. Runs in the session's pricing stage.
#include <optional>
#include <vector>

#include "src/config/config.h"
#include "src/core/result.h"
#include "src/core/sweep_record.h"
#include "src/stats/decision.h"

namespace pperf {

/// The sweep's record for priced `results` of `config` (none when the config has no sweep),
/// raced under `raced_with` (the executor's decision settings): its axes, and per workload the
/// race (rounds, why it ended, the best point, the points equivalent to it, the measured seconds
/// and those saved against every point measuring every round) and every point sorted by cost per
/// sample with its verdict, its cost interval, its cost over the best's and, if eliminated, the
/// round it left and the interval then.
std::optional<SweepRecord> sweep_race_record(const Config& config, const std::vector<Result>& results,
                                             const DecisionSettings& raced_with);

}  // namespace pperf
