#pragma once
// The cost model: a pure function of a step-time summary, priced instance groups and the
// discount. It never sees a timer or a workload, so it prices measured and given times alike.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "pricing/price_table.h"

namespace pperf {

/// One instance group with its hourly price per instance already quoted.
struct PricedGroup {
  std::string type;
  int count = 1;
  std::string role;  // "dnn" | "data"
  Market market = Market::on_demand;
  double usd_per_hour_each = 0;
  std::string price_basis;  // Quote::basis
};

/// What pricing needs to know of a measurement: the median step time and its 95 % CI.
struct StepTimeEstimate {
  double median_ms = 0;
  std::array<double, 2> ci95_ms{0, 0};
};

struct ToTrain {
  std::optional<int64_t> steps;
  double hours = 0;
  double usd = 0;
};

struct Cost {
  double usd_per_hour = 0;
  double usd_per_step = 0;
  std::array<double, 2> usd_per_step_ci95{0, 0};
  double usd_per_1m_samples = 0;
  double samples_per_usd = 0;
  std::optional<ToTrain> to_train;
};

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

struct Comparison {
  std::optional<double> improvement_pct;              // null on the baseline itself
  std::optional<std::array<double, 2>> improvement_pct_ci95;
  double speedup = 1;                                 // t_baseline / t
};

/// improvement = (1 - usd_per_step / baseline's) x 100. Its interval pairs each end of one
/// cost CI with the opposite end of the other (conservative: both measurements independent).
Comparison compare(const Cost& cost, const StepTimeEstimate& step, const Cost& baseline_cost,
                   const StepTimeEstimate& baseline_step, bool is_baseline);

}  // namespace pperf
