#pragma once
// The cost model: a pure function of a step-time summary, priced instance groups and the
// discount. It never sees a timer or a workload, so it prices measured and given times alike.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/result.h"

namespace pperf {

struct CostInput {
  std::vector<PricedGroup> groups;
  double discount_pct = 0;
  StepTimeEstimate step;
  double samples_per_step = 0;
  std::optional<int64_t> steps_to_train;     // to_train from steps x median step time
  std::optional<double> billable_seconds;    // to_train from a job's billed wall time instead
};

/// usd_per_hour = sum(count x price) x (1 - discount/100); usd_per_step = usd_per_hour x t/3600.
Cost price(const CostInput& input);

/// improvement = (1 - usd_per_step / baseline's) x 100. Its interval pairs each end of one
/// cost CI with the opposite end of the other (conservative: both measurements independent).
Comparison compare(const Cost& cost, const StepTimeEstimate& step, const Cost& baseline_cost,
                   const StepTimeEstimate& baseline_step, bool is_baseline);

}  // namespace pperf
