#include "src/stats/replicates.h"

#include <fmt/format.h>

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace pperf {

PooledHosts pool_replicates(const std::vector<PairedLogRatio>& replicates) {
  std::vector<HostMean> estimates;
  for (const auto& r : replicates) estimates.push_back(HostMean{r.log_ratio, r.se, r.dof});
  return pool_hosts(estimates);
}

std::array<double, 2> pooled_log_ratio_interval(const PooledHosts& pooled, double confidence) {
  // The pooled estimate against an exact 0: its own variance at its own degrees of freedom.
  return separate_log_ratio_interval(PooledHosts{0, 0, 1e9}, pooled, confidence);
}

namespace {
std::string spread_phrase(const PooledHosts& p) {
  if (!(p.tau2 > 0))
    return fmt::format("the between-run spread estimated at 0 from its {} replicates (they differ less than their own "
                       "intervals explain)",
                       p.hosts);
  return fmt::format("a between-run spread of {:.1f} % (sd of the log ratio) from its {} replicates", std::sqrt(p.tau2) * 100,
                     p.hosts);
}
}  // namespace

Decision decide_replicates(const std::vector<PairedLogRatio>& replicates, PriceRatio price_ratio,
                           const DecisionSettings& settings) {
  if (replicates.size() < 2) throw std::invalid_argument("decide_replicates: fewer than 2 replicates");
  const PooledHosts pooled = pool_replicates(replicates);
  Decision d;
  d.confidence = settings.confidence;
  d.equivalence_pct = settings.equivalence_pct;
  d.method = "random effects over replicates in turns";
  d.looks = 1;
  const auto bounds = improvement_bounds(pooled_log_ratio_interval(pooled, settings.confidence), price_ratio);
  d.improvement_pct_bounds = bounds;
  d.verdict = verdict_of(bounds, settings.equivalence_pct);
  d.reason = fmt::format("{}: improvement {:+.1f} to {:+.1f} % pooled over {} replicates in turns (each run's paired "
                         "log ratio one estimate, at Student t on {:g} degrees of freedom), with {}",
                         verdict_phrase(d.verdict, settings.equivalence_pct), bounds[0], bounds[1], replicates.size(),
                         pooled.dof, spread_phrase(pooled));
  return d;
}

bool took_turns(const Result& a, const Result& b) {
  const auto with = [](const Result& x, const Result& other) {
    if (!x.measurement || x.measurement->turns.schedule != Schedule::interleaved) return false;
    const auto& names = x.measurement->turns.configurations;
    return std::find(names.begin(), names.end(), other.configuration) != names.end();
  };
  return with(a, b) && with(b, a);
}

namespace {
const Result* find_result(const std::vector<Result>& results, const std::string& workload, const std::string& configuration) {
  for (const auto& r : results)
    if (r.workload == workload && r.configuration == configuration) return &r;
  return nullptr;
}

const Result* baseline_of(const std::vector<Result>& results, const std::string& workload) {
  for (const auto& r : results)
    if (r.workload == workload && r.baseline) return &r;
  return nullptr;
}
}  // namespace

nlohmann::json pool_replicate_runs(const std::vector<ReplicateRun>& runs,
                                   const ResultPriceRatio& price_ratio,
                                   const DecisionSettings& settings, std::vector<Result>& latest) {
  using nlohmann::json;
  json out = {{"count", runs.size()}, {"runs", json::array()}, {"pooled", json::array()}};
  for (size_t i = 0; i < runs.size(); ++i) {
    json results = json::array();
    for (const auto& r : runs[i].results) results.push_back(to_json(r));
    json run = {{"replicate", i + 1}, {"started_at", runs[i].started_at}, {"finished_at", runs[i].finished_at}, {"results", results}};
    if (!runs[i].source.empty()) run["source"] = runs[i].source;
    out["runs"].push_back(run);
  }
  for (auto& r : latest) {
    const Result* base = baseline_of(latest, r.workload);
    if (r.baseline || !base || !r.cost || !base->cost || !(base->cost->usd_per_hour > 0)) continue;
    json entry = {{"workload", r.workload}, {"configuration", r.configuration}, {"baseline", base->configuration}};
    json estimates = json::array();
    std::vector<PairedLogRatio> pool;
    std::string missing;
    for (size_t i = 0; i < runs.size() && missing.empty(); ++i) {
      const Result *c = find_result(runs[i].results, r.workload, r.configuration), *b = baseline_of(runs[i].results, r.workload);
      if (!c || !b || !took_turns(*c, *b) || !c->measurement || !b->measurement)
        missing = fmt::format("replicate {} did not measure {} in turns with {}", i + 1, r.configuration, base->configuration);
      else if (const auto e = paired_log_ratio(RoundSteps{b->measurement->step_ms, b->measurement->turns.round_steps},
                                               RoundSteps{c->measurement->step_ms, c->measurement->turns.round_steps})) {
        pool.push_back(*e);
        estimates.push_back({{"replicate", i + 1}, {"log_ratio", e->log_ratio}, {"se", e->se}, {"dof", e->dof}});
      } else {
        missing = fmt::format("replicate {} has no paired estimate of {} (fewer than 2 rounds, or no spread)", i + 1, r.configuration);
      }
    }
    entry["estimates"] = estimates;
    if (!missing.empty() || pool.size() < 2) {
      entry["not_pooled"] = missing.empty() ? std::string("fewer than 2 replicates") : missing;
      out["pooled"].push_back(entry);
      continue;
    }
    const PooledHosts p = pool_replicates(pool);
    const auto interval = pooled_log_ratio_interval(p, settings.confidence);
    r.decision = decide_replicates(pool, price_ratio(r, *base), settings);
    r.comparison.improvement_pct_ci95 = r.decision->improvement_pct_bounds;
    entry["log_ratio"] = p.log_mean;
    entry["variance"] = p.variance;
    entry["dof"] = p.dof;
    entry["between_run_sd"] = std::sqrt(p.tau2);
    entry["time_ratio_ci95"] = {std::exp(interval[0]), std::exp(interval[1])};
    entry["improvement_pct_ci95"] = *r.decision->improvement_pct_bounds;
    entry["verdict"] = to_string(r.decision->verdict);
    out["pooled"].push_back(entry);
  }
  return out;
}

std::optional<RunReport> pool_later_runs(const std::vector<LaterRun>& runs, const ResultPriceRatio& price_ratio,
                                         const DecisionSettings& settings) {
  if (runs.size() < 2) return std::nullopt;
  for (const auto& r : runs) {
    if (r.run->command != "run" || r.run->config_sha256 != runs.front().run->config_sha256 ||
        r.host_id != runs.front().host_id)
      return std::nullopt;
    const bool in_turns = std::any_of(r.run->results.begin(), r.run->results.end(), [&](const Result& c) {
      const Result* b = baseline_of(r.run->results, c.workload);
      return !c.baseline && b && took_turns(c, *b);
    });
    if (!in_turns) return std::nullopt;
  }
  std::vector<LaterRun> ordered = runs;
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const LaterRun& a, const LaterRun& b) { return a.run->started_at < b.run->started_at; });
  std::vector<ReplicateRun> replicates;
  for (const auto& r : ordered) replicates.push_back({r.run->results, r.run->started_at, r.run->finished_at, r.source});
  RunReport report = *ordered.back().run;
  report.command = "decide";
  report.started_at = ordered.front().run->started_at;
  report.replicates = pool_replicate_runs(replicates, price_ratio, settings, report.results);
  return report;
}

Decision with_contention(const Decision& decision, std::optional<double> others_cpu_share, PriceRatio price_ratio,
                         const DecisionSettings& settings) {
  if (!others_cpu_share || !decision.improvement_pct_bounds) return decision;
  Decision d = decision;
  const double share_pct = *others_cpu_share * 100;
  if (*others_cpu_share < kContentionCpuShare) {
    d.reason += fmt::format("; the interval covers this run's host state (other processes took {:.0f} % of its CPUs)",
                            share_pct);
    return d;
  }
  // The log-ratio interval the bounds came from (improvement_bounds inverted).
  const auto& b = *decision.improvement_pct_bounds;
  const double lo = std::log((1 - b[1] / 100) / price_ratio[0]), hi = std::log((1 - b[0] / 100) / price_ratio[1]);
  const double centre = (lo + hi) / 2, half = (hi - lo) / 2;
  const double z = boost::math::quantile(boost::math::normal(), 1 - (1 - settings.confidence) / 2);
  const double widened = std::sqrt(half * half + z * z * kContentionBetweenRunSd * kContentionBetweenRunSd);
  const auto bounds = improvement_bounds({centre - widened, centre + widened}, price_ratio);
  d.improvement_pct_bounds = bounds;
  d.verdict = verdict_of(bounds, settings.equivalence_pct);
  d.reason = fmt::format("{}: improvement {:+.1f} to {:+.1f} % with the between-run spread of a busy host ({:.1f} %) "
                         "added, because other processes took {:.0f} % of the host's CPUs while it ran ({:.0f} % or more "
                         "is contention, and runs in turns that busy disagreed beyond their own intervals; "
                         "docs/statistics.md \"Replicates\"); this run alone: {}; `pperf run --replicates N` measures the "
                         "spread instead",
                         verdict_phrase(d.verdict, settings.equivalence_pct), bounds[0], bounds[1],
                         kContentionBetweenRunSd * 100, share_pct, kContentionCpuShare * 100, decision.reason);
  return d;
}

}  // namespace pperf
