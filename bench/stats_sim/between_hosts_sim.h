#pragma once
// Simulated decisions between configurations measured apart (src/stats/between_hosts.h, the
// chain `pperf decide` runs): each side k hosts, each host's true mean step drawn around its
// type's with a between-host spread (lognormal, sd `spread`), each host's steps drawn by a
// coverage_sim.h generator around its own mean. Shared by bench/stats_sim (the tables in
// docs/statistics.md "Hosts measured apart") and the unit tests that pin their boundaries.
#include <fmt/format.h>

#include <cmath>
#include <string>
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
  /// history, external_spread; below kMinHistoryHosts none), 0: none.
  int64_t history_hosts = 0;
  /// One host a side, no history: the stated prior added (with_prior); 0: the spread ignored.
  double prior_cv = 0;
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
    if (s.hosts == 1 && s.history_hosts > 0) {
      std::vector<HostMean> others;
      for (int64_t h = 0; h < s.history_hosts; ++h)
        if (auto m = simulated_host(s, scale, rng)) others.push_back(*m);
      external = external_spread(others);
    }
    return pool_hosts(means, external);
  };
  for (int t = 0; t < trials; ++t) {
    ++cell.trials;
    const auto b = side(s.steps.scale), c = side(s.steps.scale * s.speed);
    if (!b || !c) continue;
    const auto log_ratio = s.prior_cv > 0 ? decision_log_ratio_interval(*b, *c, s.prior_cv, settings.confidence)
                                          : separate_log_ratio_interval(*b, *c, settings.confidence);
    const auto bounds = improvement_bounds(log_ratio, s.price_ratio);
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

/// Re-deciding after adding hosts (issue 68 item 4), A/A or not: each side starts with
/// `s.hosts`, and while the decision is undecided a host is added a side and it is decided again,
/// up to `most` a side (what following "about N more hosts would likely decide it" by adding
/// hosts and running `decide` again does). One host a side takes the prior (s.prior_cv).
struct AddingHostsCell {
  int trials = 0, cheaper = 0, dearer = 0, equivalent = 0;
  int first_look_false = 0;  // false verdicts (cheaper or dearer) at the first look alone
};
inline AddingHostsCell simulate_adding_hosts(const SeparateSetup& s, int64_t most, int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  AddingHostsCell cell;
  DecisionSettings settings;
  for (int t = 0; t < trials; ++t) {
    ++cell.trials;
    std::vector<HostMean> b, c;
    bool complete = true;
    for (int64_t h = 0; h < most && complete; ++h) {
      const auto mb = simulated_host(s, s.steps.scale, rng), mc = simulated_host(s, s.steps.scale * s.speed, rng);
      complete = mb && mc;
      if (complete) b.push_back(*mb), c.push_back(*mc);
    }
    if (!complete) continue;
    for (int64_t k = s.hosts; k <= most; ++k) {
      const PooledHosts pb = pool_hosts({b.begin(), b.begin() + k}), pc = pool_hosts({c.begin(), c.begin() + k});
      const auto bounds = improvement_bounds(decision_log_ratio_interval(pb, pc, s.prior_cv, settings.confidence), s.price_ratio);
      const CostVerdict v = verdict_of(bounds, settings.equivalence_pct);
      if (k == s.hosts) cell.first_look_false += v == CostVerdict::cheaper || v == CostVerdict::dearer;
      if (v == CostVerdict::undecided) continue;
      ++(v == CostVerdict::cheaper ? cell.cheaper : v == CostVerdict::dearer ? cell.dearer : cell.equivalent);
      break;
    }
  }
  return cell;
}

/// One cell of docs/statistics.md's hosts tables, " A/A false % / coverage % |": `aa` simulated
/// with seed `seed`, then the same with the truth 5.5 % cheaper (10 % faster at a 5 % higher price)
/// with `seed + 1`. (A/A coverage is 100 % less the false decisions.)
inline std::string hosts_cell(const SeparateSetup& aa, int trials, uint64_t seed) {
  SeparateSetup effect = aa;
  effect.speed = 0.9, effect.price_ratio = 1.05;
  const SeparateCell a = simulate_separate(aa, trials, seed), e = simulate_separate(effect, trials, seed + 1);
  const auto pct = [](int count, int of) { return of ? 100.0 * count / of : 0; };
  return fmt::format(" {:.1f} / {:.1f} |", pct(a.cheaper + a.dearer, a.trials), pct(e.covered, e.intervals));
}

/// One cell of the hostsadd table, " first look false % / every look false % |".
inline std::string adding_hosts_cell(const SeparateSetup& s, int64_t most, int trials, uint64_t seed) {
  const AddingHostsCell c = simulate_adding_hosts(s, most, trials, seed);
  const auto pct = [](int count, int of) { return of ? 100.0 * count / of : 0; };
  return fmt::format(" {:.1f} / {:.1f} |", pct(c.first_look_false, c.trials), pct(c.cheaper + c.dearer, c.trials));
}

}  // namespace pperf::coverage
