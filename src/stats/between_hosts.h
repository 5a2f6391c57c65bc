#pragma once
// A configuration measured apart on several hosts (`pperf decide`): each host's mean step time
// with its own error, pooled into the configuration's mean over machines of its type, the
// between-host variance carried in the interval (a random-effects estimate on the log scale).
// Free functions, no state. docs/statistics.md "Hosts measured apart" has the simulated rates.
//
// - Two or more hosts: DerSimonian and Laird's (1986) moment estimate of the between-host
//   variance tau^2 from the hosts' log means and their own standard errors; the pooled log mean
//   weighted by 1 / (se_i^2 + tau^2); its variance the larger of DerSimonian-Laird's and
//   Hartung-Knapp's (2001; the "never narrower" variant, Roever et al. 2015), whose spread is
//   the hosts' own scatter; degrees of freedom by Satterthwaite from the hosts' (k - 1) and the
//   hosts' own errors' (their batch means').
// - One host: the between-host variance is not measured. Taken from elsewhere (the history's
//   hosts of the type) it is added to the host's own variance; else it is left out, and the
//   caller states that and what a stated prior (kPriorBetweenHostCv) would make of the interval.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/stats/decision.h"

namespace pperf {

/// One host's measurement of a configuration: log of its mean step time, that log's standard
/// error (se / mean, batch means: src/stats/intervals.h mean_with_error) and its degrees of freedom.
struct HostMean {
  double log_mean = 0, se = 0, dof = 0;
};
/// The mean_with_error of a host's steps on the log scale; nullopt where that has none.
std::optional<HostMean> host_mean(const std::vector<double>& step_ms);

/// A between-host spread known from outside the replicates: its standard deviation on the log
/// scale (~ the coefficient of variation of hosts' mean step times) and how many hosts it is
/// estimated from (its degrees of freedom are hosts - 1).
struct ExternalSpread {
  double cv = 0;
  int64_t hosts = 0;
};

/// The stated prior for the between-host spread when nothing measures it: 2 % (sd of the log
/// mean step time between machines of one type). The low end of the several per cent that
/// studies of identical machines report (Maricq et al., OSDI 2018; Uta et al., NSDI 2020;
/// docs/statistics.md): a floor, not a measurement.
constexpr double kPriorBetweenHostCv = 0.02;

enum class BetweenHostSource { replicates, history, not_included };
std::string to_string(BetweenHostSource source);

/// A configuration's log mean step time over the machines of its type, with the variance and
/// degrees of freedom of its estimate and the between-host variance in it.
struct PooledHosts {
  double log_mean = 0, variance = 0, dof = 0;
  double tau2 = 0;  // the between-host variance used (log scale)
  int64_t hosts = 0;
  BetweenHostSource source = BetweenHostSource::not_included;
  double mean_host_variance = 0;  // the hosts' own se^2, averaged (for planning more hosts)
};
/// Pools `hosts` (at least one, each se > 0). Two or more: tau^2 from them (external ignored);
/// one: tau^2 = external's cv^2 when given, else 0 (not_included).
PooledHosts pool_hosts(const std::vector<HostMean>& hosts, const std::optional<ExternalSpread>& external = std::nullopt);

/// The interval of log(candidate mean / baseline mean) at `confidence`: Student t at the
/// Welch-Satterthwaite degrees of freedom of the two pooled variances.
std::array<double, 2> separate_log_ratio_interval(const PooledHosts& baseline, const PooledHosts& candidate,
                                                  double confidence = 0.95);

/// The same pooled estimate with `more` (>= 0) hosts added, every host's variance own + `tau2`
/// and the mean unchanged: what a planner expects after measuring them.
PooledHosts with_more_hosts(const PooledHosts& pooled, int64_t more, double tau2);

/// How many more hosts of each side would likely decide an undecided comparison: the fewest in
/// all (up to `most` a side) after which the interval at the present estimate decides (cheaper,
/// dearer or equivalent) at both ends of the price ratio; per-host variance own + `tau2`.
/// nullopt when no such number up to `most` a side would.
struct MoreHosts {
  int64_t baseline = 0, candidate = 0;
};
std::optional<MoreHosts> more_hosts_to_decide(const PooledHosts& baseline, const PooledHosts& candidate, double tau2,
                                              PriceRatio price_ratio, const DecisionSettings& settings, int64_t most = 20);

}  // namespace pperf
