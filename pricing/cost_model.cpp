#include "pricing/cost_model.h"

#include <algorithm>
#include <cmath>

#include "src/stats/intervals.h"
#include "src/stats/stats.h"

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

namespace {
/// The hourly price at both ends of its range, the point price twice without one.
std::array<double, 2> usd_per_hour_ends(const Cost& c) {
  return c.usd_per_hour_range ? *c.usd_per_hour_range : std::array<double, 2>{c.usd_per_hour, c.usd_per_hour};
}

/// Fills the per-step and per-sample figures of `cost`, whose hourly price (and range) is set,
/// at `step`: what price() and reprice() share.
void price_steps(Cost& cost, const StepTimeEstimate& step, double samples_per_step) {
  const double usd_per_ms = cost.usd_per_hour / 3.6e6;
  cost.usd_per_step = usd_per_ms * step.mean_ms;
  // Time and price are bounded separately: the interval runs from the cheapest price at the
  // mean's lower bound to the dearest price at its upper bound (a given time: the mean both ends).
  const std::array<double, 2> usd_per_ms_ends =
      cost.usd_per_hour_range ? std::array<double, 2>{(*cost.usd_per_hour_range)[0] / 3.6e6, (*cost.usd_per_hour_range)[1] / 3.6e6}
                              : std::array<double, 2>{usd_per_ms, usd_per_ms};
  if (const auto& ci = step.mean_ci95_ms)
    cost.usd_per_step_ci95 = std::array<double, 2>{usd_per_ms_ends[0] * (*ci)[0], usd_per_ms_ends[1] * (*ci)[1]};
  else if (cost.usd_per_hour_range)
    cost.usd_per_step_ci95 = std::array<double, 2>{usd_per_ms_ends[0] * step.mean_ms, usd_per_ms_ends[1] * step.mean_ms};
  if (samples_per_step > 0 && cost.usd_per_step > 0) {
    cost.usd_per_1m_samples = cost.usd_per_step / samples_per_step * 1e6;
    cost.samples_per_usd = 1e6 / cost.usd_per_1m_samples;
    if (const auto& ci = cost.usd_per_step_ci95)
      cost.usd_per_1m_samples_ci95 = std::array<double, 2>{(*ci)[0] / samples_per_step * 1e6, (*ci)[1] / samples_per_step * 1e6};
  }
}
}  // namespace

Cost price(const CostInput& input) {
  Cost cost;
  cost.usd_per_hour = group_usd_per_hour(input.groups, input.discount_pct);
  cost.usd_per_hour_range = group_usd_per_hour_range(input.groups, input.discount_pct);
  price_steps(cost, input.step, input.samples_per_step);
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

Cost reprice(const Cost& priced, const StepTimeEstimate& step, double samples_per_step) {
  Cost cost;
  cost.usd_per_hour = priced.usd_per_hour;
  cost.usd_per_hour_range = priced.usd_per_hour_range;
  cost.to_train = priced.to_train;
  price_steps(cost, step, samples_per_step);
  return cost;
}

std::array<double, 2> price_ratio_of(const Cost& candidate, const Cost& baseline) {
  const auto c = usd_per_hour_ends(candidate), b = usd_per_hour_ends(baseline);
  return {c[0] / b[1], c[1] / b[0]};
}

namespace {
/// CI of mean(candidate) / mean(baseline) from the two means' own intervals, by MOVER on the
/// log scale (Zou & Donner 2008): each end combines the candidate's and the baseline's
/// opposite half-widths, so the skewed (Hall) intervals keep their asymmetry. nullopt when a
/// side has no interval.
std::optional<std::array<double, 2>> ratio_of_means_ci(const StepTimeEstimate& candidate, const StepTimeEstimate& baseline) {
  if (!candidate.mean_ci95_ms || !baseline.mean_ci95_ms) return std::nullopt;
  const auto& c = *candidate.mean_ci95_ms;
  const auto& b = *baseline.mean_ci95_ms;
  if (!(c[0] > 0 && b[0] > 0)) return std::nullopt;
  const double log_ratio = std::log(candidate.mean_ms / baseline.mean_ms);
  const double lo = std::hypot(std::log(candidate.mean_ms / c[0]), std::log(b[1] / baseline.mean_ms));
  const double hi = std::hypot(std::log(c[1] / candidate.mean_ms), std::log(baseline.mean_ms / b[0]));
  return std::array<double, 2>{std::exp(log_ratio - lo), std::exp(log_ratio + hi)};
}
}  // namespace

Comparison compare(const PricedStep& candidate, const PricedStep& baseline, bool is_baseline,
                   const std::optional<std::array<double, 2>>& paired_time_ratio_ci) {
  Comparison c;
  if (candidate.step.mean_ms > 0) c.speedup = baseline.step.mean_ms / candidate.step.mean_ms;
  const auto ratio = paired_time_ratio_ci                                             ? paired_time_ratio_ci
                     : candidate.step.mean_ms > 0 && baseline.step.mean_ms > 0 ? ratio_of_means_ci(candidate.step, baseline.step)
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
    const auto cand = usd_per_hour_ends(candidate.cost), base = usd_per_hour_ends(baseline.cost);
    const double point = candidate.step.mean_ms / baseline.step.mean_ms;
    const std::array<double, 2> time_ratio = ratio ? *ratio : std::array<double, 2>{point, point};
    c.improvement_pct_ci95 = std::array<double, 2>{(1 - cand[1] / base[0] * time_ratio[1]) * 100,
                                                   (1 - cand[0] / base[1] * time_ratio[0]) * 100};
  }
  return c;
}

}  // namespace pperf
