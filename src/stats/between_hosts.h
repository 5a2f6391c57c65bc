#pragma once
// A configuration measured apart on several hosts (`pperf decide`): each host's mean step time
// with its own error, pooled into the configuration's mean over machines of its type, the
// between-host variance carried in the interval (a random-effects estimate on the log scale).
// Free functions, no state. docs/statistics.md "Hosts measured apart" has the simulated rates.
//
// - Two or more hosts: each host's own variance as own_variance (its batch means' few dof
//   carried: a floor), the hosts weighted alike by their average v (they measured one
//   configuration on one type; weights from each host's own few batch means are noise); then
//   DerSimonian and Laird's (1986) tau^2 = max(0, scatter - v) (scatter: the sample variance of
//   the hosts' log means), the pooled log mean their plain mean, its variance the larger of
//   1 / sum w* = (v + tau^2) / k and Hartung-Knapp's (2001) scatter / k, at Student t on k - 1
//   degrees of freedom always (Roever, Knapp and Friede 2015, "never narrower"), tau^2 = 0
//   included: k hosts are k - 1 degrees of freedom about the type, however many steps each measured.
// - One host: the between-host variance is not measured. Taken from elsewhere (the history's
//   hosts of the type) it is added to the host's own variance; else it is left out of the host's
//   interval (not_included), and a decision adds the stated prior (with_prior).
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

/// The floor on a host's degrees of freedom in own_variance (a host with fewer counts as 4).
constexpr double kMinOwnDof = 4;
/// A host's own variance where several hosts are pooled at t(k - 1): se^2 dof / (dof - 2), the
/// variance of a t on its dof over the normal's (dof floored at kMinOwnDof: at most 2x), so its
/// batch means' few degrees of freedom (5 at 60 steps a host) are not lost to t(k - 1).
double own_variance(const HostMean& h);

/// A between-host spread measured by other hosts of the type (the history, external_spread):
/// the sample variance of their log means (`scatter`, their own errors in it: var tau^2 + se^2,
/// a host's whole deviation from the type), their own se^2 averaged (`own`), and how many hosts
/// (its degrees of freedom are hosts - 1). `cv`: DerSimonian-Laird's tau over them (what is shown).
struct ExternalSpread {
  double cv = 0;
  int64_t hosts = 0;
  double scatter = 0, own = 0;
};

/// The fewest other hosts of a type whose spread a one-host configuration takes (the history);
/// with fewer the prior stands. Two hosts are one degree of freedom: no spread.
constexpr int64_t kMinHistoryHosts = 3;
/// The spread of `others` (one mean per host); nullopt below kMinHistoryHosts.
std::optional<ExternalSpread> external_spread(const std::vector<HostMean>& others);

/// The stated prior for the between-host spread when nothing measures it: 5 % (sd of the log
/// mean step time between machines of one type), the spread Maricq et al. (OSDI 2018, "Taming
/// performance variability") report between machines of one type for several of their types;
/// Uta et al. (NSDI 2020) report spreads of that order in clouds. A stated figure, not a
/// measurement: spreads beyond it are not covered (docs/statistics.md "Hosts measured apart").
constexpr double kPriorBetweenHostCv = 0.05;

/// prior: one host, nothing measured the spread, the stated prior added (with_prior).
enum class BetweenHostSource { replicates, history, not_included, prior };
std::string to_string(BetweenHostSource source);

/// A configuration's log mean step time over the machines of its type, with the variance and
/// degrees of freedom of its estimate and the between-host variance in it.
struct PooledHosts {
  double log_mean = 0, variance = 0, dof = 0;
  double tau2 = 0;  // the between-host variance used (log scale)
  int64_t hosts = 0;
  BetweenHostSource source = BetweenHostSource::not_included;
  double mean_host_variance = 0;  // the hosts' own variance (own_variance; one host: se^2), averaged (for planning)
};
/// Pools `hosts` (at least one, each se > 0). Two or more: tau^2 from them (external ignored).
/// One with `external`: its variance the other hosts' scatter, plus what its own se^2 exceeds
/// theirs by (never truncated at 0 the way DerSimonian-Laird's tau^2 over few hosts is), at
/// Satterthwaite's dof of hosts - 1 and its own; without: its own variance (not_included).
PooledHosts pool_hosts(const std::vector<HostMean>& hosts, const std::optional<ExternalSpread>& external = std::nullopt);

/// A side measured on one host with nothing measuring its between-host spread (not_included):
/// the prior's variance (prior_cv^2, as if known) added to the host's own (source prior). Any
/// other source is returned as it is.
PooledHosts with_prior(const PooledHosts& pooled, double prior_cv);

/// The interval of log(candidate mean / baseline mean) at `confidence`: Student t at the
/// Welch-Satterthwaite degrees of freedom of the two pooled variances.
std::array<double, 2> separate_log_ratio_interval(const PooledHosts& baseline, const PooledHosts& candidate,
                                                  double confidence = 0.95);

/// The interval a decision takes (`pperf decide`): separate_log_ratio_interval of the two sides
/// with_prior(prior_cv), and never narrower than without it (the hull of both: the prior's
/// variance with its large degrees of freedom can lower t more than it adds).
std::array<double, 2> decision_log_ratio_interval(const PooledHosts& baseline, const PooledHosts& candidate,
                                                  double prior_cv, double confidence = 0.95);

/// The same pooled estimate with `more` (>= 0) hosts added, every host's variance own + `tau2`,
/// the mean unchanged and pool_hosts' degrees of freedom (k - 1): what a planner expects after
/// measuring them.
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
