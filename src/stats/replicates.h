#pragma once
// Replicates: the same comparison measured again in turns on one host (`pperf run --replicates
// N`; several results files of one config from one host given to `pperf decide`), each run its
// own replicate. A run's paired log ratio (paired_log_ratio, src/stats/decision.h: its rounds'
// fixed-sample estimate) is one estimate; the replicates' estimates are pooled by the project's
// one random-effects rule (pool_hosts, src/stats/between_hosts.h): the between-replicate variance
// estimated from them (DerSimonian-Laird), the pooled variance never narrower than Hartung-Knapp's,
// at Student t on k - 1 degrees of freedom. The pairing within each run is kept: only whole runs
// are compared with each other. Free functions, no state; docs/statistics.md "Replicates".
//
// A single run's interval covers its own host state. When other processes took a share of the
// host's CPUs at or above kContentionCpuShare while it ran, runs in turns disagreed beyond their
// intervals (issue 68), and with_contention widens its interval by the between-run spread
// measured on a host that busy.
#include <nlohmann/json.hpp>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/stats/between_hosts.h"
#include "src/stats/decision.h"

namespace pperf {

/// A candidate's hourly price over its baseline's as [lo, hi] (pricing/cost_model.h: price_ratio_of).
using ResultPriceRatio = std::function<PriceRatio(const Result& candidate, const Result& baseline)>;

/// The replicates' estimates pooled: pool_hosts over them (at least one, each se > 0). Two or
/// more: source replicates, tau2 the between-replicate variance of the log ratio.
PooledHosts pool_replicates(const std::vector<PairedLogRatio>& replicates);

/// The interval of a pooled log ratio: log_mean +- t(confidence, dof) sqrt(variance).
std::array<double, 2> pooled_log_ratio_interval(const PooledHosts& pooled, double confidence = 0.95);

/// Decides once from two or more replicates' estimates (each measured to its budget: a fixed
/// sample) at the price ratio: the pooled interval, its verdict, and a reason naming the
/// replicates and their spread. Method "random effects over replicates in turns".
Decision decide_replicates(const std::vector<PairedLogRatio>& replicates, PriceRatio price_ratio,
                           const DecisionSettings& settings);

/// Every replicate of one comparison, each its runs' results in the same plan order (priced:
/// each with its own single-run decision), oldest first, with when each ran.
struct ReplicateRun {
  std::vector<Result> results;
  std::string started_at, finished_at;
  std::string source;  // where it came from (`pperf decide`: the results file); "" for `pperf run --replicates`
};

/// Pools `runs` (two or more): for each workload's candidate that took turns with its baseline in
/// every run, each run's paired_log_ratio one estimate, decide_replicates at `price_ratio(candidate,
/// baseline)` (the latest run's results). Sets those candidates' decisions in `latest` (the last
/// run's results, which the results file's `results` keep) to the pooled one and returns the
/// results file's `replicates` object (docs/results.md): count, every run with its results, and
/// per pooled candidate its estimates and pooled interval. A candidate a run measured without
/// turns, or without spread, keeps the latest run's own decision (its `pooled` entry says why).
nlohmann::json pool_replicate_runs(const std::vector<ReplicateRun>& runs,
                                   const ResultPriceRatio& price_ratio,
                                   const DecisionSettings& settings, std::vector<Result>& latest);

/// `a` and `b` took turns with each other in their run (their rounds pair up).
bool took_turns(const Result& a, const Result& b);

/// One results file `pperf decide` reads: its name, the host it was measured on, its run.
struct LaterRun {
  std::string source, host_id;
  const RunReport* run = nullptr;
};
/// `pperf decide` of later runs of one config on one host: nullopt unless there are two or more,
/// every one a `pperf run` of the same config (config_sha256) on the same host_id whose baseline
/// took turns with another configuration. Then the newest run's report (command "decide"),
/// priced as it was, its candidates' decisions pool_replicate_runs of them all (oldest first),
/// the price ratio from its own costs.
std::optional<RunReport> pool_later_runs(const std::vector<LaterRun>& runs, const ResultPriceRatio& price_ratio,
                                         const DecisionSettings& settings);

/// Other processes' share of the host's CPU time (their CPU time / (wall x logical CPUs), the
/// results' bottleneck.others_cpu_pct / 100) at and above which a single run is contended: a
/// quarter of the host, the level at which pperf already warns of a busy neighbour.
constexpr double kContentionCpuShare = 0.25;
/// The between-run sd of the paired log ratio of runs in turns on a contended host: nine runs of
/// the README job on one 2-core host with builds beside it (issue 68: 0.077, Cochran's Q 66 on 8
/// degrees of freedom); docs/statistics.md "Replicates" has this session's measurement beside it.
constexpr double kContentionBetweenRunSd = 0.077;

/// A single run's decision (its interval covers this run's host state, the reason says so) given
/// the larger of the two sides' `others_cpu_share`: below kContentionCpuShare the same, the
/// reason adding that the interval covers this run's host state; at or above it the log-ratio
/// interval widened to sqrt(h^2 + (z kContentionBetweenRunSd)^2) around its centre (z: the
/// normal quantile at the confidence) and the verdict read from that, the reason saying why.
/// nullopt share (not measured), or a decision without an interval: returned as it is.
Decision with_contention(const Decision& decision, std::optional<double> others_cpu_share, PriceRatio price_ratio,
                         const DecisionSettings& settings);

}  // namespace pperf
