#include "pricing/cost_model.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>

#include "bench/stats/compare_stats.h"
#include "bench/stats/intervals.h"
#include "bench/stats/stats.h"

namespace pperf {

double group_usd_per_hour(const std::vector<PricedGroup>& groups, double discount_pct) {
  double list_usd_per_hour = 0;
  for (const auto& g : groups) list_usd_per_hour += g.count * g.usd_per_hour_each;
  return list_usd_per_hour * (1 - discount_pct / 100);
}

std::optional<std::array<double, 2>> group_usd_per_hour_range(const std::vector<PricedGroup>& groups, double discount_pct) {
  bool any = false;
  std::array<double, 2> range{0, 0};
  for (const auto& g : groups) {
    any = any || g.usd_per_hour_range.has_value();
    for (int end : {0, 1}) range[end] += g.count * (g.usd_per_hour_range ? (*g.usd_per_hour_range)[end] : g.usd_per_hour_each);
  }
  if (!any) return std::nullopt;
  for (double& x : range) x *= 1 - discount_pct / 100;
  return range;
}

Cost price(const CostInput& input) {
  Cost cost;
  cost.usd_per_hour = group_usd_per_hour(input.groups, input.discount_pct);
  cost.usd_per_hour_range = group_usd_per_hour_range(input.groups, input.discount_pct);

  const double usd_per_ms = cost.usd_per_hour / 3.6e6;
  cost.usd_per_step = usd_per_ms * input.step.mean_ms;
  // Time and price are bounded separately: the interval runs from the cheapest price at the
  // mean's lower bound to the dearest price at its upper bound (a given time: the mean both ends).
  const std::array<double, 2> usd_per_ms_ends =
      cost.usd_per_hour_range ? std::array<double, 2>{(*cost.usd_per_hour_range)[0] / 3.6e6, (*cost.usd_per_hour_range)[1] / 3.6e6}
                              : std::array<double, 2>{usd_per_ms, usd_per_ms};
  if (const auto& ci = input.step.mean_ci95_ms)
    cost.usd_per_step_ci95 = std::array<double, 2>{usd_per_ms_ends[0] * (*ci)[0], usd_per_ms_ends[1] * (*ci)[1]};
  else if (cost.usd_per_hour_range)
    cost.usd_per_step_ci95 = std::array<double, 2>{usd_per_ms_ends[0] * input.step.mean_ms, usd_per_ms_ends[1] * input.step.mean_ms};
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
    t.hours = *input.steps_to_train * input.step.mean_ms / 3.6e6;
    t.usd = cost.usd_per_hour * t.hours;
    cost.to_train = t;
  }
  return cost;
}

namespace {
double widening_of(const PricedStep& p) {
  return autocorrelation_widening(p.step.lag1_autocorrelation.value_or(0), p.samples->size());
}

/// CI of mean(candidate) / mean(baseline), or nullopt.
std::optional<std::array<double, 2>> ratio_of_means_ci(const PricedStep& candidate, const PricedStep& baseline) {
  for (const PricedStep* p : {&candidate, &baseline})
    if (!p->samples || p->samples->size() < kMinCiSteps || !p->step.mean_ci95_ms || !valid_step_times(*p->samples))
      return std::nullopt;
  const double level = std::max(candidate.step.ci_nominal_level, baseline.step.ci_nominal_level);
  const double ratio = candidate.step.mean_ms / baseline.step.mean_ms;
  const double widening = std::max(widening_of(candidate), widening_of(baseline));
  const double z = boost::math::quantile(boost::math::normal(), 0.5 + level / 2);
  double log_lo, log_hi;
  if (candidate.samples->size() + baseline.samples->size() > kComparisonBootstrapMaxSamples) {
    // Delta method: var(log mean) = (se / mean)^2, se from each side's own (widened) CI.
    auto rel_se = [](const PricedStep& p) {
      const auto& ci = *p.step.mean_ci95_ms;
      const double z_p = boost::math::quantile(boost::math::normal(), 0.5 + p.step.ci_nominal_level / 2);
      return (ci[1] - ci[0]) / 2 / z_p / p.step.mean_ms;
    };
    const double se = std::hypot(rel_se(candidate), rel_se(baseline));
    return std::array<double, 2>{ratio * std::exp(-z * se), ratio * std::exp(z * se)};
  }
  const auto ci = bootstrap_ratio_ci(*baseline.samples, *candidate.samples, mean, kComparisonResamples,
                                     kComparisonSeed, level);
  log_lo = std::log(ci[0] / ratio) * widening;
  log_hi = std::log(ci[1] / ratio) * widening;
  return std::array<double, 2>{ratio * std::exp(log_lo), ratio * std::exp(log_hi)};
}
}  // namespace

Comparison compare(const PricedStep& candidate, const PricedStep& baseline, bool is_baseline) {
  Comparison c;
  if (candidate.step.mean_ms > 0) c.speedup = baseline.step.mean_ms / candidate.step.mean_ms;
  const auto ratio = candidate.step.mean_ms > 0 && baseline.step.mean_ms > 0
                         ? ratio_of_means_ci(candidate, baseline)
                         : std::nullopt;
  if (ratio && !is_baseline) c.speedup_ci95 = std::array<double, 2>{1 / (*ratio)[1], 1 / (*ratio)[0]};
  if (is_baseline || baseline.cost.usd_per_step <= 0) return c;
  auto improvement = [](double usd, double baseline_usd) { return (1 - usd / baseline_usd) * 100; };
  c.improvement_pct = improvement(candidate.cost.usd_per_step, baseline.cost.usd_per_step);
  const bool price_spread = candidate.cost.usd_per_hour_range || baseline.cost.usd_per_hour_range;
  const bool given_times = !candidate.samples && !baseline.samples;
  if ((ratio || (price_spread && given_times)) && baseline.cost.usd_per_hour > 0) {
    // Price ratio ends: the candidate's dearest over the baseline's cheapest, and the reverse
    // (point prices when neither is a range); a given step time contributes its ratio alone.
    auto ends = [](const Cost& cost) {
      return cost.usd_per_hour_range ? *cost.usd_per_hour_range : std::array<double, 2>{cost.usd_per_hour, cost.usd_per_hour};
    };
    const auto cand = ends(candidate.cost), base = ends(baseline.cost);
    const double point = candidate.step.mean_ms / baseline.step.mean_ms;
    const std::array<double, 2> time_ratio = ratio ? *ratio : std::array<double, 2>{point, point};
    c.improvement_pct_ci95 = std::array<double, 2>{(1 - cand[1] / base[0] * time_ratio[1]) * 100,
                                                   (1 - cand[0] / base[1] * time_ratio[0]) * 100};
  }
  return c;
}

}  // namespace pperf
