#pragma once
// The cost model: a pure function of a step-time summary, priced instance groups and the
// discount. It never sees a timer or a workload, so it prices measured and given times alike.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace pperf {

struct CostInput {
  std::vector<PricedGroup> groups;
  double discount_pct = 0;
  StepTimeEstimate step;
  double samples_per_step = 0;
  std::optional<int64_t> steps_to_train;     // to_train from steps x mean step time
  std::optional<double> billable_seconds;    // to_train from a job's billed wall time instead
};

/// sum(count x price per hour) x (1 - discount/100): what the groups cost per hour.
double group_usd_per_hour(const std::vector<PricedGroup>& groups, double discount_pct);

/// The hourly price with every Spot group at its table's cheapest, then dearest price (other
/// groups at their point price), discounted; nullopt when no group is priced as a range.
std::optional<std::array<double, 2>> group_usd_per_hour_range(const std::vector<PricedGroup>& groups, double discount_pct);

/// usd_per_hour = group_usd_per_hour(groups, discount); usd_per_step = usd_per_hour x t/3600
/// with t the mean step time (what the job is billed for). Its interval: [cheapest price x the
/// mean's CI low, dearest price x the mean's CI high]; with a given step time and a price range,
/// [cheapest, dearest] x t; null with a given time at point prices.
Cost price(const CostInput& input);

/// `priced` at another step time: the same hourly price (and range) and cost to train, its
/// per-step and per-sample figures and their intervals as price() makes them at `step`. What a
/// result pooled from several runs of one configuration is priced with (compare's pool_runs).
Cost reprice(const Cost& priced, const StepTimeEstimate& step, double samples_per_step);

/// The candidate's hourly price over the baseline's at both ends of any price range: [its
/// cheapest over the baseline's dearest, its dearest over the baseline's cheapest] (the point
/// prices where neither is a range). What a decision reads of prices.
std::array<double, 2> price_ratio_of(const Cost& candidate, const Cost& baseline);

/// A priced result as compare reads it; samples are null for a given step time.
struct PricedStep {
  const Cost& cost;
  const StepTimeEstimate& step;
  const std::vector<double>* samples = nullptr;
};

/// improvement = (1 - usd_per_step / baseline's) x 100, speedup = baseline's mean step / mean
/// step. Their intervals come from the CI of the ratio of mean step times, combined from the
/// two means' 95 % intervals (MOVER on the log scale; conservative when the two were measured
/// interleaved and share the host's drift). With Spot price ranges, the price ratio's ends widen it (the
/// candidate's dearest over the baseline's cheapest, and the reverse). Null when neither side
/// has samples and a CI, and no side is priced as a range.
/// `paired_time_ratio_ci`: when the two took turns, the CI of the time ratio from their paired
/// rounds (src/stats/decision.h), used instead of combining the two means' intervals.
Comparison compare(const PricedStep& candidate, const PricedStep& baseline, bool is_baseline,
                   const std::optional<std::array<double, 2>>& paired_time_ratio_ci = std::nullopt);

}  // namespace pperf
