#pragma once
// Simulated decisions between configurations measured apart (src/stats/between_hosts.h, the
// chain `pperf decide` runs): each side k hosts, each host's true mean step drawn around its
// type's with a between-host spread (lognormal, sd `spread`), each host's steps drawn by a
// coverage_sim.h generator around its own mean. Shared by bench/stats_sim (the tables in
// docs/statistics.md "Hosts measured apart") and the unit tests that pin their boundaries.
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "bench/stats_sim/coverage_sim.h"
#include "src/stats/between_hosts.h"
#include "src/stats/decision.h"

namespace pperf::coverage {

struct SeparateSetup {
  Generator steps{Shape::lognormal_005};
  double spread = 0;            // between-host sd of log mean step time
  int64_t hosts = 1;            // a side
  size_t steps_per_host = 200;
  double speed = 1;             // candidate's mean step over the baseline's (type level)
  double price_ratio = 1;       // candidate's hourly price over the baseline's
  /// One host a side: the between-host spread from this many other hosts of each type (the
  /// history), 0: not included (the spread ignored).
  int64_t history_hosts = 0;
};

struct SeparateCell {
  int trials = 0, cheaper = 0, dearer = 0, equivalent = 0, intervals = 0, covered = 0;
};

/// One host's HostMean: its true mean the type's times exp(spread z), its steps around it.
inline std::optional<HostMean> simulated_host(const SeparateSetup& s, double type_scale, std::mt19937_64& rng) {
  std::normal_distribution<double> z(0, 1);
  Generator g = s.steps;
  g.scale = type_scale * std::exp(s.spread * z(rng));
  return host_mean(g.draw(s.steps_per_host, rng));
}

inline SeparateCell simulate_separate(const SeparateSetup& s, int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  SeparateCell cell;
  DecisionSettings settings;
  const double true_improvement = (1 - s.price_ratio * s.speed) * 100;
  const auto side = [&](double scale) -> std::optional<PooledHosts> {
    std::vector<HostMean> means;
    for (int64_t h = 0; h < s.hosts; ++h)
      if (auto m = simulated_host(s, scale, rng)) means.push_back(*m);
      else return std::nullopt;
    std::optional<ExternalSpread> external;
    if (s.hosts == 1 && s.history_hosts >= 2) {
      std::vector<HostMean> others;
      for (int64_t h = 0; h < s.history_hosts; ++h)
        if (auto m = simulated_host(s, scale, rng)) others.push_back(*m);
      const PooledHosts p = pool_hosts(others);
      external = ExternalSpread{std::sqrt(p.tau2), p.hosts};
    }
    return pool_hosts(means, external);
  };
  for (int t = 0; t < trials; ++t) {
    ++cell.trials;
    const auto b = side(s.steps.scale), c = side(s.steps.scale * s.speed);
    if (!b || !c) continue;
    const auto bounds = improvement_bounds(separate_log_ratio_interval(*b, *c, settings.confidence), s.price_ratio);
    ++cell.intervals;
    cell.covered += bounds[0] <= true_improvement && true_improvement <= bounds[1];
    switch (verdict_of(bounds, settings.equivalence_pct)) {
      case CostVerdict::cheaper: ++cell.cheaper; break;
      case CostVerdict::dearer: ++cell.dearer; break;
      case CostVerdict::equivalent: ++cell.equivalent; break;
      case CostVerdict::undecided: break;
    }
  }
  return cell;
}

}  // namespace pperf::coverage
