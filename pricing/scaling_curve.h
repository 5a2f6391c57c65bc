#pragma once
// A scaling curve's record from priced results (docs/scaling.md): per workload, every result of
// a data-parallel configuration whose trainer group counts one of the curve's instances is a
// point; each gets its throughput and efficiency against the reference (the curve's first
// instance count) with intervals from the measured steps (src/stats/scaling.h), its time and
// cost per epoch from its price per hour, and whether it meets the deadline. Pure.
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/core/scaling_curve.h"

namespace pperf {

/// One curve per workload (workload, preset, batch size) among `results` that has a point;
/// none when `settings` asks for no curve. Its `measured_as` says how the points' ranks ran (from
/// the results' launcher).
std::optional<ScalingRecord> scaling_record(const std::optional<ScalingSettings>& settings, const std::vector<Result>& results);

/// The curve's point of `r` against the reference result `reference` (nullptr: none ok), with
/// `settings`' epoch and deadline; `instances` of `r`'s and the reference's trainer groups.
ScalingPoint scaling_point(const Result& r, int64_t instances, const Result* reference, int64_t reference_instances,
                           const ScalingSettings& settings);

}  // namespace pperf
