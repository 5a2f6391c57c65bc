#pragma once
// Simulated coverage of the intervals pperf prints (docs/statistics.md): draws step times from
// the audit's four shapes, measures them the way pperf does (fixed n, or the real stop rules),
// and counts how often each interval contains the true value. Shared by the unit test (few
// trials) and bench/coverage/coverage_table.cpp, bench/stats_sim (the full tables).
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/stats/compare_stats.h"
#include "src/stats/decision.h"
#include "src/stats/intervals.h"
#include "src/stats/stats.h"
#include "src/stats/stopping.h"
#include "src/stats/turn_order.h"
#include "pricing/cost_model.h"

namespace pperf::coverage {

/// regime_switching: a host that switches between two speeds (issue 60's MNIST run on a quiet
/// 2-core host: ~14 and ~30 ms), each regime lasting 5-20 steps (uniform), lognormal s=0.05 within.
enum class Shape { lognormal_005, lognormal_03, outliers_5pct_3x, bimodal, regime_switching };
inline const char* name(Shape s) {
  switch (s) {
    case Shape::lognormal_005: return "lognormal s=0.05";
    case Shape::lognormal_03: return "lognormal s=0.3";
    case Shape::outliers_5pct_3x: return "5% outliers at 3x";
    case Shape::bimodal: return "bimodal 25% at 1.7x";
    case Shape::regime_switching: return "regimes at 1x / 2.14x, runs of 5-20";
  }
  return "?";
}
inline const std::vector<Shape> kShapes = {Shape::lognormal_005, Shape::lognormal_03, Shape::outliers_5pct_3x,
                                           Shape::bimodal};

/// A step-time generator with known true median and mean (ms). `rho` > 0: AR(1) in log space.
struct Generator {
  Shape shape;
  double scale = 100, rho = 0;
  double sigma() const { return shape == Shape::lognormal_03 ? 0.3 : 0.05; }
  double slow_p() const {
    return shape == Shape::outliers_5pct_3x ? 0.05 : shape == Shape::bimodal ? 0.25 : shape == Shape::regime_switching ? 0.5 : 0;
  }
  double slow_x() const { return shape == Shape::outliers_5pct_3x ? 3 : shape == Shape::regime_switching ? 30.0 / 14 : 1.7; }
  double true_mean() const {
    return scale * std::exp(sigma() * sigma() / 2) * (1 - slow_p() + slow_p() * slow_x());
  }
  double cdf(double x) const {
    auto phi = [&](double v) { return 0.5 * std::erfc(-std::log(v / scale) / sigma() / std::sqrt(2.0)); };
    return (1 - slow_p()) * phi(x) + slow_p() * phi(x / slow_x());
  }
  double true_median() const {
    double lo = scale / 10, hi = scale * 10;
    for (int i = 0; i < 200; ++i) (cdf((lo + hi) / 2) < 0.5 ? lo : hi) = (lo + hi) / 2;
    return (lo + hi) / 2;
  }
  std::vector<double> draw(size_t n, std::mt19937_64& rng) const {
    std::normal_distribution<double> z(0, 1);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<double> out(n);
    double state = z(rng);
    // Regimes: each run 5-20 steps, the two levels alternating from a random one. Both levels'
    // runs are alike, so any window starting at a switch spends half its steps in each on average.
    // (Other shapes draw nothing for this, so their streams stay as they were.)
    std::uniform_int_distribution<int> run_length(5, 20);
    const bool regimes = shape == Shape::regime_switching;
    bool slow = regimes && u(rng) < 0.5;
    int left = regimes ? run_length(rng) : 0;
    for (auto& x : out) {
      x = scale * std::exp(sigma() * state);
      if (regimes) {
        if (slow) x *= slow_x();
        if (--left == 0) slow = !slow, left = run_length(rng);
      } else if (u(rng) < slow_p()) {
        x *= slow_x();
      }
      state = rho * state + std::sqrt(1 - rho * rho) * z(rng);
    }
    return out;
  }
};

struct Cell {
  int trials = 0, median_hits = 0, mean_hits = 0, median_intervals = 0, mean_intervals = 0;
  int before_hits = 0;  // before issue 13: cost CI = the median's CI (median_ci95), vs the bill
  int on_target = 0, on_target_mean_hits = 0;  // runs the precision target stopped, and their mean CI's hits
  double steps = 0;  // mean n at the end
  double median_coverage() const { return median_intervals ? double(median_hits) / median_intervals : 0; }
  double mean_coverage() const { return mean_intervals ? double(mean_hits) / mean_intervals : 0; }
  double before_coverage() const { return trials ? double(before_hits) / trials : 0; }
};

/// Measures like the runner: feeds one step at a time to the real stop rules until one fires
/// (with max_seconds out of the way), then estimates as the executor does.
inline StepTimeEstimate measure_like_pperf(const std::vector<double>& steps, const StopSettings& settings,
                                           size_t& used, StopReason* reason = nullptr) {
  auto rules = make_stop_rules(settings);
  std::vector<double> so_far;
  for (double x : steps) {
    so_far.push_back(x);
    if (auto cause = first_stop(rules, so_far, 0)) {
      if (reason) *reason = cause->code;
      break;
    }
  }
  used = so_far.size();
  return step_time_estimate(so_far);
}

/// Coverage of both intervals at a fixed n (settings == nullptr) or under the stop rules.
inline Cell simulate(const Generator& g, size_t n, int trials, uint64_t seed, const StopSettings* settings = nullptr) {
  std::mt19937_64 rng(seed);
  const double median = g.true_median(), mean = g.true_mean();
  Cell c;
  for (int t = 0; t < trials; ++t) {
    const std::vector<double> steps = g.draw(settings ? static_cast<size_t>(settings->max_steps) : n, rng);
    size_t used = steps.size();
    StopReason reason = StopReason::other;
    const StepTimeEstimate e = settings ? measure_like_pperf(steps, *settings, used, &reason) : step_time_estimate(steps);
    ++c.trials;
    c.steps += static_cast<double>(used) / trials;
    if (e.ci95_ms) ++c.median_intervals, c.median_hits += (*e.ci95_ms)[0] <= median && median <= (*e.ci95_ms)[1];
    const auto before = median_ci95(steps);
    c.before_hits += before[0] <= mean && mean <= before[1];
    if (e.mean_ci95_ms) ++c.mean_intervals, c.mean_hits += (*e.mean_ci95_ms)[0] <= mean && mean <= (*e.mean_ci95_ms)[1];
    if (reason == StopReason::target_rel_ci && e.mean_ci95_ms)
      ++c.on_target, c.on_target_mean_hits += (*e.mean_ci95_ms)[0] <= mean && mean <= (*e.mean_ci95_ms)[1];
  }
  return c;
}

/// Coverage of improvement_pct_ci95 (same prices: improvement = 1 - mean ratio) for a baseline
/// of one shape and a candidate of another, n steps each.
inline double improvement_coverage(const Generator& base, const Generator& cand, size_t n, int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double truth = (1 - cand.true_mean() / base.true_mean()) * 100;
  int hits = 0, intervals = 0;
  for (int t = 0; t < trials; ++t) {
    const std::vector<double> b = base.draw(n, rng), c = cand.draw(n, rng);
    const StepTimeEstimate eb = step_time_estimate(b), ec = step_time_estimate(c);
    Cost cb, cc;
    cb.usd_per_hour = cc.usd_per_hour = 3.6;
    cb.usd_per_step = eb.mean_ms / 1000;
    cc.usd_per_step = ec.mean_ms / 1000;
    const Comparison cmp = compare({cc, ec, &c}, {cb, eb, &b}, false);
    if (!cmp.improvement_pct_ci95) continue;
    ++intervals;
    hits += (*cmp.improvement_pct_ci95)[0] <= truth && truth <= (*cmp.improvement_pct_ci95)[1];
  }
  return intervals ? double(hits) / intervals : 0;
}

/// How the host's speed moves while two configurations are measured: not at all, +3 % linearly
/// over the run, a random walk ending ~3 % away (sd), or a 30 % slow-down (a CPU-bound neighbour)
/// from a third of the way on.
enum class Drift { none, linear_3pct, random_walk, neighbour_at_third };
inline const char* name(Drift d) {
  switch (d) {
    case Drift::none: return "no drift";
    case Drift::linear_3pct: return "+3 % linear";
    case Drift::random_walk: return "random walk";
    case Drift::neighbour_at_third: return "+30 % from 1/3";
  }
  return "?";
}
inline const std::vector<Drift> kDrifts = {Drift::none, Drift::linear_3pct, Drift::random_walk, Drift::neighbour_at_third};

/// The host's speed factor at each of `steps` consecutive steps.
inline std::vector<double> host_speed(Drift d, size_t steps, std::mt19937_64& rng) {
  std::normal_distribution<double> z(0, 1);
  std::vector<double> f(steps, 1);
  double walk = 0;
  for (size_t i = 0; i < steps; ++i) {
    const double at = static_cast<double>(i) / static_cast<double>(steps);
    if (d == Drift::linear_3pct) f[i] = 1 + 0.03 * at;
    if (d == Drift::random_walk) f[i] = std::exp(walk += z(rng) * 0.03 / std::sqrt(static_cast<double>(steps)));
    if (d == Drift::neighbour_at_third) f[i] = at > 1.0 / 3 ? 1.3 : 1;
  }
  return f;
}

struct DecisionCell {
  int trials = 0, cheaper = 0, dearer = 0, equivalent = 0, undecided = 0;
  double rounds = 0;  // mean rounds at the stop
  /// The printed improvement interval (the anytime one) and the fixed-sample t over the same
  /// rounds: how often each holds the true improvement, over all runs and over the runs the
  /// decision stopped.
  int intervals = 0, anytime_hits = 0, fixed_hits = 0, stopped = 0, stopped_anytime_hits = 0, stopped_fixed_hits = 0;
  std::vector<double> rounds_each;  // rounds at the stop, per trial
  double rate(int count) const { return trials ? double(count) / trials : 0; }
  double coverage(int hits, int of) const { return of ? double(hits) / of : 0; }
};

/// How configurations took turns before issue 40: A B C, C B A, ... (the middle one always in
/// the middle); turn_order (a Williams design) since.
enum class Order { balanced, reversing };

/// Effects of the order itself on a turn's step times, as factors: `back_to_back` when a
/// configuration's turn directly follows its own previous one (e.g. 0.98: 2 % faster, its caches
/// warm); `first_in_round` on the first turn of each round (e.g. 1.02: after the scheduler's look).
struct CarryOver {
  double back_to_back = 1, first_in_round = 1;
};

/// k configurations measured as `pperf run` takes turns (kRoundSteps-step rounds after `untimed`
/// un-timed steps, on one drifting host), configuration 0 the baseline; configuration i's steps
/// are the baseline's shape x speed[i], priced at price_ratio[i] of the baseline. Looks after
/// every round (from min_rounds on) and stops once every candidate is decided, or after
/// `max_rounds`. Counts candidate 1's verdicts; `candidate` picks another one.
struct TurnsSetup {
  Generator base;
  std::vector<double> speed = {1, 1}, price_ratio = {1, 1};
  Drift drift = Drift::none;
  Order order = Order::balanced;
  CarryOver carry;
  size_t round_steps = 10, untimed = 3, max_rounds = 60;
  size_t candidate = 1;
  DecisionSettings settings{};
  /// Tell the decision the budget in rounds (max_rounds) as `pperf run` does from max_steps.
  bool horizon = true;
  /// A correlation that is not AR(1) at the step level: each configuration's own speed (not
  /// shared) wanders from round to round, exp(wander_sd u_j), u an AR(1) over rounds with lag-1
  /// correlation wander_rho, constant within a round. 0: none.
  double wander_sd = 0, wander_rho = 0;
  /// The decision sees the rounds' steps (as pperf does); false: their means only.
  bool steps = true;
};

inline DecisionCell simulate_turns(const TurnsSetup& s, int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  DecisionCell cell;
  const size_t k = s.speed.size();
  const size_t per_side = s.max_rounds * (s.round_steps + s.untimed);
  const double truth = (1 - s.price_ratio[s.candidate] * s.speed[s.candidate]) * 100;
  DecisionSettings settings = s.settings;
  if (s.horizon) settings.horizon_rounds = s.max_rounds;
  for (int t = 0; t < trials; ++t) {
    std::vector<std::vector<double>> steps(k), rounds(k);
    std::vector<RoundSteps> timed(k, RoundSteps{{}, static_cast<int64_t>(s.round_steps)});
    std::normal_distribution<double> z(0, 1);
    std::vector<double> wander(k, 0);
    if (s.wander_sd > 0)
      for (double& u : wander) u = z(rng);
    for (size_t i = 0; i < k; ++i) {
      Generator g = s.base;
      g.scale *= s.speed[i];
      steps[i] = g.draw(per_side, rng);
    }
    const std::vector<double> host = host_speed(s.drift, k * per_side, rng);
    std::vector<size_t> next(k, 0);
    size_t clock = 0, last = k;
    std::vector<Decision> d(k);
    bool decided = false;
    for (size_t r = 0; r < s.max_rounds && !decided; ++r) {
      std::vector<size_t> order = turn_order(k, r);
      if (s.order == Order::reversing) {
        order.resize(k);
        for (size_t j = 0; j < k; ++j) order[j] = r % 2 ? k - 1 - j : j;
      }
      for (size_t i : order) {
        const double carry = (last == i ? s.carry.back_to_back : 1) * (i == order.front() ? s.carry.first_in_round : 1);
        next[i] += s.untimed, clock += s.untimed;
        const double speed = s.wander_sd > 0 ? std::exp(s.wander_sd * wander[i]) : 1;
        if (s.wander_sd > 0) wander[i] = s.wander_rho * wander[i] + std::sqrt(1 - s.wander_rho * s.wander_rho) * z(rng);
        double sum = 0;
        for (size_t j = 0; j < s.round_steps; ++j) {
          const double x = steps[i][next[i]++] * host[clock++] * carry * speed;
          timed[i].step_ms.push_back(x);
          sum += x;
        }
        rounds[i].push_back(sum / static_cast<double>(s.round_steps));
        last = i;
      }
      decided = true;
      for (size_t i = 1; i < k; ++i) {
        d[i] = s.steps ? decide_interleaved(timed[0], timed[i], s.price_ratio[i], settings)
                       : decide_interleaved(rounds[0], rounds[i], s.price_ratio[i], settings);
        decided = decided && d[i].verdict != CostVerdict::undecided;
      }
    }
    ++cell.trials;
    const size_t used = rounds[0].size();
    cell.rounds += static_cast<double>(used) / trials;
    cell.rounds_each.push_back(static_cast<double>(used));
    const Decision& c = d[s.candidate];
    switch (c.verdict) {
      case CostVerdict::cheaper: ++cell.cheaper; break;
      case CostVerdict::dearer: ++cell.dearer; break;
      case CostVerdict::equivalent: ++cell.equivalent; break;
      case CostVerdict::undecided: ++cell.undecided; break;
    }
    const auto fixed = paired_time_ratio_interval(rounds[0], rounds[s.candidate]);
    if (c.improvement_pct_bounds && fixed) {
      const double p = s.price_ratio[s.candidate];
      const bool any = (*c.improvement_pct_bounds)[0] <= truth && truth <= (*c.improvement_pct_bounds)[1];
      const bool fix = (1 - p * (*fixed)[1]) * 100 <= truth && truth <= (1 - p * (*fixed)[0]) * 100;
      ++cell.intervals, cell.anytime_hits += any, cell.fixed_hits += fix;
      if (decided) ++cell.stopped, cell.stopped_anytime_hits += any, cell.stopped_fixed_hits += fix;
    }
  }
  return cell;
}

/// Two configurations measured the way `pperf run` takes turns (kRoundSteps-step rounds after
/// `untimed` un-timed steps, A B / B A alternating, on one drifting host), looking after every
/// round and stopping when decided or after `max_rounds`; candidate = base's shape x `speed`.
inline DecisionCell simulate_decisions(const Generator& base, double speed, double price_ratio, Drift drift, int trials,
                                       uint64_t seed, size_t round_steps = 10, size_t untimed = 3, size_t max_rounds = 60) {
  TurnsSetup s;
  s.base = base;
  s.speed = {1, speed};
  s.price_ratio = {1, price_ratio};
  s.drift = drift;
  s.round_steps = round_steps, s.untimed = untimed, s.max_rounds = max_rounds;
  return simulate_turns(s, trials, seed);
}

/// `pperf compare`'s error rates: the share of comparisons whose test says p < 0.05, the
/// candidate's steps `speed` times the baseline's. Each run sits at its own host level
/// exp(run_sd z) (whole runs on a shared host differ by a few percent). `baseline_runs` = 1:
/// one run a side (welch_mean_change on the steps); more: the candidate against that many
/// baseline runs' means (run_to_run_change).
inline double compare_rejection_rate(const Generator& g, size_t n, size_t baseline_runs, double speed, double run_sd,
                                     int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 1);
  auto run = [&](double factor) {
    std::vector<double> steps = g.draw(n, rng);
    const double level = factor * std::exp(run_sd * z(rng));
    for (double& x : steps) x *= level;
    return steps;
  };
  int rejected = 0;
  for (int t = 0; t < trials; ++t) {
    std::optional<MeanChange> c;
    if (baseline_runs == 1) {
      const std::vector<double> base = run(1);
      c = welch_mean_change(base, run(speed));
    } else {
      std::vector<double> means;
      for (size_t k = 0; k < baseline_runs; ++k) means.push_back(mean(run(1)));
      c = run_to_run_change(means, mean(run(speed)));
    }
    rejected += c && c->p_value < 0.05;
  }
  return static_cast<double>(rejected) / trials;
}

/// Exact coverage of the median's order-statistic interval at `level` for n (no widening).
inline double median_exact_level(size_t n, double level) {
  const auto ranks = median_ci_ranks(n, level);
  double tail = 0;
  for (size_t i = 0; i < ranks[0]; ++i)
    tail += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
  return 1 - 2 * tail;
}

}  // namespace pperf::coverage
