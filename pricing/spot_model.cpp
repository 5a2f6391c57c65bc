#include "pricing/spot_model.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "src/stats/stats.h"

namespace pperf {

namespace {

void require_non_negative(double value, const char* name) {
  if (!std::isfinite(value) || value < 0)
    throw std::invalid_argument(std::string("spot model: ") + name + " must be a finite number >= 0");
}

/// One attempt-and-retry of a restore: an interruption during it starts it again.
double restore_once(std::mt19937_64& rng, std::exponential_distribution<double>& next, double restore_s,
                    bool interruptible) {
  double spent = 0;
  for (;;) {
    const double x = interruptible ? next(rng) : INFINITY;
    if (x >= restore_s) return spent + restore_s;
    spent += x;
  }
}

}  // namespace

double young_daly_interval_s(double checkpoint_save_s, double interruptions_per_hour, double step_s, double work_s) {
  if (interruptions_per_hour <= 0) return work_s;
  const double mtbf_s = 3600 / interruptions_per_hour;
  double tau = std::sqrt(2 * checkpoint_save_s * mtbf_s);
  if (step_s > 0) tau = std::max(1.0, std::round(tau / step_s)) * step_s;
  return std::min(tau, work_s);
}

std::vector<double> segments_s(double work_s, double interval_s, double checkpoint_save_s) {
  std::vector<double> out;
  if (work_s <= 0) return out;
  if (interval_s <= 0) interval_s = work_s;
  // Whole intervals, then the remainder; 1e-9 relative slack so W = k x tau gives k segments.
  const auto full = static_cast<int64_t>(std::floor(work_s / interval_s * (1 + 1e-12)));
  const double rest = work_s - static_cast<double>(full) * interval_s;
  for (int64_t i = 0; i < full; ++i) out.push_back(interval_s + checkpoint_save_s);
  if (rest > interval_s * 1e-9) out.push_back(rest + checkpoint_save_s);
  if (!out.empty()) out.back() -= checkpoint_save_s;  // the job ends: no checkpoint after the last
  return out;
}

std::optional<double> first_order_billed_s(const std::vector<double>& segments, double lambda_per_s, double restore_s) {
  double sum = 0, sum_sq = 0;
  for (double s : segments) sum += s, sum_sq += s * s;
  if (sum <= 0) return 0.0;
  const double denominator = 1 - lambda_per_s * (restore_s + sum_sq / (2 * sum));
  if (denominator <= 0) return std::nullopt;
  return sum / denominator;
}

MonteCarloSummary simulate_billed_s(const std::vector<double>& segments, double lambda_per_s, double restore_s,
                                    int64_t trials, uint64_t seed) {
  MonteCarloSummary out;
  if (trials <= 0) return out;
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> next(lambda_per_s > 0 ? lambda_per_s : 1);
  const bool interruptible = lambda_per_s > 0;
  std::vector<double> billed(static_cast<size_t>(trials));
  for (auto& t : billed) {
    t = 0;
    for (double s : segments) {
      // Memoryless: the time to the next interruption can be drawn afresh at each start.
      for (;;) {
        const double x = interruptible ? next(rng) : INFINITY;
        if (x >= s) {
          t += s;
          break;
        }
        t += x;
        t += restore_once(rng, next, restore_s, interruptible);
      }
    }
  }
  out.mean_s = mean(billed);
  out.p50_s = percentile(billed, 50);
  out.p95_s = percentile(billed, 95);
  return out;
}

namespace {

struct Analytic {
  double interval_s = 0;
  std::optional<double> billed_s;
};

Analytic analytic(const SpotModelInput& in, double lambda_per_hour) {
  Analytic a;
  a.interval_s = in.checkpoint_interval_s
                     ? std::min(*in.checkpoint_interval_s, in.work_s)
                     : young_daly_interval_s(in.checkpoint_save_s, lambda_per_hour, in.step_s, in.work_s);
  a.billed_s = first_order_billed_s(segments_s(in.work_s, a.interval_s, in.checkpoint_save_s), lambda_per_hour / 3600,
                                    in.checkpoint_restore_s);
  return a;
}

/// λ x (τ + C + R) at a per-instance monthly rate: how likely an interruption is within one
/// segment plus a restore.
double reach(const SpotModelInput& in, double per_instance_month) {
  const double lambda_h = per_instance_month * in.spot_instances / kHoursPerMonth;
  return lambda_h / 3600 * (analytic(in, lambda_h).interval_s + in.checkpoint_save_s + in.checkpoint_restore_s);
}

/// Bisection for the rate in [lo, hi] where `above` turns true (it is false at lo, true at hi).
template <typename Above>
double bisect(double lo, double hi, Above above) {
  for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (above(mid) ? hi : lo) = mid;
  }
  return (lo + hi) / 2;
}

/// The per-instance monthly rate at which Spot costs what On-Demand does (the expected cost
/// grows with the rate), searched only where the first-order model holds; past that range the
/// range's edge is returned as a lower bound (second: true). nullopt when Spot is not cheaper
/// even without interruptions.
std::optional<std::pair<double, bool>> break_even_per_month(const SpotModelInput& in, double on_demand_usd) {
  auto too_dear = [&](double per_instance_month) {
    const Analytic a = analytic(in, per_instance_month * in.spot_instances / kHoursPerMonth);
    return !a.billed_s || *a.billed_s / 3600 * in.usd_per_hour >= on_demand_usd;
  };
  if (too_dear(0)) return std::nullopt;
  double hi = 1;
  while (!too_dear(hi) && reach(in, hi) <= kFirstOrderReach && hi < 1e12) hi *= 2;
  if (reach(in, hi) > kFirstOrderReach) {
    const double edge = bisect(0, hi, [&](double x) { return reach(in, x) > kFirstOrderReach; });
    if (!too_dear(edge)) return std::pair(edge, true);
    hi = edge;
  }
  return std::pair(bisect(0, hi, too_dear), false);
}

}  // namespace

SpotEstimate estimate_spot(const SpotModelInput& in) {
  require_non_negative(in.work_s, "work_s");
  require_non_negative(in.step_s, "step_s");
  require_non_negative(in.interruptions_per_hour, "interruptions_per_hour");
  require_non_negative(in.checkpoint_save_s, "checkpoint_save_s");
  require_non_negative(in.checkpoint_restore_s, "checkpoint_restore_s");
  require_non_negative(in.restart_overhead_s, "restart_overhead_s");
  require_non_negative(in.usd_per_hour, "usd_per_hour");
  require_non_negative(in.on_demand_usd_per_hour, "on_demand_usd_per_hour");
  if (in.checkpoint_interval_s && (!std::isfinite(*in.checkpoint_interval_s) || *in.checkpoint_interval_s <= 0))
    throw std::invalid_argument("spot model: checkpoint_interval_s must be a finite number > 0");

  SpotEstimate e;
  const double lambda_h = in.interruptions_per_hour;
  e.interruptions_per_hour = lambda_h;
  if (lambda_h > 0) e.mtbf_h = 1 / lambda_h;
  e.checkpoint_save_s = in.checkpoint_save_s;
  e.checkpoint_restore_s = in.checkpoint_restore_s;
  e.restart_overhead_s = in.restart_overhead_s;
  e.work_hours = in.work_s / 3600;
  e.on_demand_usd = e.work_hours * in.on_demand_usd_per_hour;

  const Analytic a = analytic(in, lambda_h);
  e.checkpoint_interval_s = a.interval_s;
  e.interval_basis = in.checkpoint_interval_s ? "config" : lambda_h > 0 ? "young_daly" : "no_interruptions";
  // Beyond the first-order model's reach the expectation is unbounded: report infinity as
  // absent hours would hide it, so such inputs are refused (the caller names the config).
  if (!a.billed_s)
    throw std::invalid_argument("spot model: with these rates the job is not expected to finish (interruptions "
                                "come faster than a checkpoint interval plus a restore)");
  e.expected_hours = *a.billed_s / 3600;
  e.expected_interruptions = e.expected_hours * lambda_h;
  e.expected_wall_hours = e.expected_hours + e.expected_interruptions * in.restart_overhead_s / 3600;
  e.expected_usd = e.expected_hours * in.usd_per_hour;
  e.savings_pct = e.on_demand_usd > 0 ? (1 - e.expected_usd / e.on_demand_usd) * 100 : 0;

  const MonteCarloSummary mc = simulate_billed_s(segments_s(in.work_s, a.interval_s, in.checkpoint_save_s),
                                                 lambda_h / 3600, in.checkpoint_restore_s, in.mc_trials, in.seed);
  e.mc_trials = in.mc_trials;
  e.mc_seed = in.seed;
  e.mc_mean_hours = mc.mean_s / 3600;
  e.p50_hours = mc.p50_s / 3600;
  e.p95_hours = mc.p95_s / 3600;
  e.mc_mean_usd = e.mc_mean_hours * in.usd_per_hour;
  e.p50_usd = e.p50_hours * in.usd_per_hour;
  e.p95_usd = e.p95_hours * in.usd_per_hour;
  if (const auto b = break_even_per_month(in, e.on_demand_usd)) {
    e.break_even_interruptions_per_month = b->first;
    e.break_even_is_lower_bound = b->second;
  }
  return e;
}

}  // namespace pperf
