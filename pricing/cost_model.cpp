#include "pricing/cost_model.h"

namespace pperf {

Cost price(const CostInput& input) {
  Cost cost;
  double list_usd_per_hour = 0;
  for (const auto& g : input.groups) list_usd_per_hour += g.count * g.usd_per_hour_each;
  cost.usd_per_hour = list_usd_per_hour * (1 - input.discount_pct / 100);

  const double usd_per_ms = cost.usd_per_hour / 3.6e6;
  cost.usd_per_step = usd_per_ms * input.step.median_ms;
  cost.usd_per_step_ci95 = {usd_per_ms * input.step.ci95_ms[0], usd_per_ms * input.step.ci95_ms[1]};
  if (input.samples_per_step > 0 && cost.usd_per_step > 0) {
    cost.usd_per_1m_samples = cost.usd_per_step / input.samples_per_step * 1e6;
    cost.samples_per_usd = 1e6 / cost.usd_per_1m_samples;
  }
  if (input.billable_seconds) {
    ToTrain t;
    t.steps = input.steps_to_train;
    t.hours = *input.billable_seconds / 3600;
    t.usd = cost.usd_per_hour * t.hours;
    cost.to_train = t;
  } else if (input.steps_to_train) {
    ToTrain t;
    t.steps = input.steps_to_train;
    t.hours = *input.steps_to_train * input.step.median_ms / 3.6e6;
    t.usd = cost.usd_per_hour * t.hours;
    cost.to_train = t;
  }
  return cost;
}

Comparison compare(const Cost& cost, const StepTimeEstimate& step, const Cost& baseline_cost,
                   const StepTimeEstimate& baseline_step, bool is_baseline) {
  Comparison c;
  if (step.median_ms > 0) c.speedup = baseline_step.median_ms / step.median_ms;
  if (is_baseline || baseline_cost.usd_per_step <= 0) return c;
  auto improvement = [](double usd, double baseline_usd) { return (1 - usd / baseline_usd) * 100; };
  c.improvement_pct = improvement(cost.usd_per_step, baseline_cost.usd_per_step);
  const auto& ci = cost.usd_per_step_ci95;
  const auto& base_ci = baseline_cost.usd_per_step_ci95;
  if (base_ci[0] > 0)
    c.improvement_pct_ci95 = std::array<double, 2>{improvement(ci[1], base_ci[0]),
                                                   improvement(ci[0], base_ci[1])};
  return c;
}

}  // namespace pperf
