#include "reports/decide_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "src/core/utc_time.h"
#include "src/stats/intervals.h"

namespace pperf {

namespace {

std::string hosts_phrase(const HostPooling& h) {
  return fmt::format("{} host{}", h.replicates, h.replicates == 1 ? "" : "s");
}

/// The between-host spread in words. DerSimonian-Laird's estimate is truncated at 0 when the hosts'
/// means scatter no more than their own errors explain: then it says so rather than "0.0 %".
std::string between_phrase(const HostPooling& h) {
  const double cv = h.between_host_cv.value_or(0);
  const std::string of = h.between_host == "replicates" ? fmt::format("its {} hosts", h.between_host_hosts.value_or(0))
                                                        : std::string("the history's hosts of its type");
  if (h.between_host == "replicates" || h.between_host == "history") {
    if (!(cv > 0))
      return fmt::format("between-host spread estimated at 0 from {} (they differ less than their own intervals explain)", of);
    if (cv < 0.0005) return "between-host spread below 0.1 % from " + of;
    return fmt::format("between-host spread {:.1f} % from {}", cv * 100, of);
  }
  if (h.between_host == "prior")
    return fmt::format("between-host spread not measured (one host, no history of its type): the stated {:g} % prior",
                       h.prior_cv.value_or(cv) * 100);
  return "between-host spread not included";
}

/// Why a configuration has no interval of its mean, and what to do.
std::string no_interval_text(const NoInterval& n) {
  if (n.steps < static_cast<int64_t>(kMinCiSteps))
    return fmt::format("{} (host {}) has no interval of its mean: {} steps, fewer than the {} an interval needs; measure it "
                       "again with measure.min_steps of {} or more (and measure.max_seconds long enough for them)",
                       n.source, n.host_id, n.steps, kMinCiSteps, kMinCiSteps);
  return fmt::format("{} (host {}) has no interval of its mean: its {} step times do not vary (or are not valid); measure it again",
                     n.source, n.host_id, n.steps);
}

/// The workload's baseline result in `report`, if it has one.
const Result* baseline_of(const RunReport& report, const std::string& workload) {
  for (const auto& r : report.results)
    if (r.workload == workload && r.baseline) return &r;
  return nullptr;
}

/// The configuration decided against (the same in every workload that has it); "" when none.
std::string baseline_name(const RunReport& report) {
  for (const auto& r : report.results)
    if (r.baseline) return r.configuration;
  return "";
}

/// A member as text: "" when absent.
std::string text_or_empty(const std::optional<std::string>& s) { return s.value_or(""); }

}  // namespace

std::vector<std::string> decide_input_lines(const RunReport& report) {
  std::vector<std::string> lines;
  if (!report.decide) return lines;
  for (const DecideInput& in : report.decide->inputs) {
    std::string line = fmt::format("{} ({}): host {}", in.source, fmt::join(in.configurations, ", "), in.host_id);
    if (const auto& p = in.placement) {
      line += ", platform " + p->platform;
      const std::string type = text_or_empty(p->instance_type), id = text_or_empty(p->instance_id);
      line += ", instance " + (type.empty() ? std::string("type not given") : type) + (id.empty() ? ", no instance id" : " " + id);
      const std::string job = text_or_empty(p->job_name), job_id = text_or_empty(p->job_id);
      if (!job.empty() || !job_id.empty()) line += ", job " + job + (job_id.empty() ? "" : (job.empty() ? "" : " ") + job_id);
    } else {
      line += ", no placement recorded (a file from before placements)";
    }
    const DecideMachine& m = in.machine;
    if (!m.empty())
      line += fmt::format("; on {} ({}, {} logical CPUs)", text_or_empty(m.hostname), text_or_empty(m.cpu_model),
                          m.logical_cpus ? std::to_string(*m.logical_cpus) : "");
    line += "; started " + in.started_at;
    if (in.after_first_s) {
      const double after = *in.after_first_s;
      line += after > 0 ? ", " + duration_text(after) + " after the first run" : " (the first run)";
    }
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> decide_notes(const RunReport& report) {
  std::vector<std::string> notes;
  if (report.command == "decide" && report.replicates.is_object())  // src/stats/replicates.h: pool_later_runs
    notes.push_back(fmt::format("{} runs of one config on one host: replicates in turns, each run's paired ratio one "
                                "estimate, priced as the newest was", report.replicates.value("count", 0)));
  if (!report.decide) return notes;
  const DecideRecord& d = *report.decide;
  for (const auto& a : d.accepted) {
    const auto at = [&](size_t i) { return a.at && a.at->size() > i ? " " + (*a.at)[i] : std::string(); };
    notes.push_back(fmt::format("accepted (--accept {}): {}{} differs from {} ({} vs {})", a.field, a.sources.at(1), at(1),
                                a.sources.at(0), a.values.at(1), a.values.at(0)));
  }
  for (const auto& in : d.inputs)
    if (in.pricing.sha256.value_or("") != d.pricing.sha256 || in.pricing.table != d.pricing.table)
      notes.push_back(fmt::format("{} was priced with {} (retrieved {}); decide re-prices every configuration with {} "
                                  "(retrieved {}, {})",
                                  in.source, in.pricing.table, in.pricing.retrieved, d.pricing.table, d.pricing.retrieved,
                                  d.pricing.chosen));
  const std::string baseline = baseline_name(report);
  std::string workload;
  for (const auto& r : report.results) {
    if (r.workload != workload && (workload = r.workload, !baseline_of(report, workload)))
      notes.push_back(fmt::format("workload {}: no result of the baseline '{}': its configurations are priced, not decided",
                                  workload, baseline));
    if (!r.hosts) continue;
    if (const NoInterval* none = d.no_interval_of(r.workload, r.configuration))
      notes.push_back(fmt::format("{}: {}; no interval: {}", r.configuration, hosts_phrase(*r.hosts), no_interval_text(*none)));
    else
      notes.push_back(fmt::format("{}: {}, {}", r.configuration, hosts_phrase(*r.hosts), between_phrase(*r.hosts)));
  }
  return notes;
}

void decide_reasons(RunReport& report) {
  if (!report.decide) return;
  const DecideRecord& d = *report.decide;
  for (const DecideReasonFacts& facts : d.reasons) {
    const Result* base = baseline_of(report, facts.workload);
    Result* c = nullptr;
    for (auto& r : report.results)
      if (r.workload == facts.workload && r.configuration == facts.configuration) c = &r;
    if (!base || !c || !c->decision || !c->hosts || !base->hosts) continue;
    const NoInterval* c_none = d.no_interval_of(c->workload, c->configuration);
    const NoInterval* base_none = d.no_interval_of(base->workload, base->configuration);
    std::string why = fmt::format("measured separately (schedule: separate, no turns), {} vs {} of {}, {} apart; {}; {}",
                                  hosts_phrase(*c->hosts), hosts_phrase(*base->hosts), base->configuration,
                                  duration_text(c->hosts->apart_s.value_or(0)),
                                  c_none ? no_interval_text(*c_none) : between_phrase(*c->hosts),
                                  base_none ? no_interval_text(*base_none) : base->configuration + "'s " + between_phrase(*base->hosts));
    if (!c_none && !base_none) {
      if (const auto& own = facts.own_improvement_pct_bounds)
        why += fmt::format("; one host cannot separate the type from the machine: the interval adds the stated {:g} % "
                           "between-host prior (the spread Maricq et al., OSDI 2018, report between machines of one "
                           "type; larger spreads are not covered), where the hosts' own intervals alone give {:+.1f} to "
                           "{:+.1f} %",
                           d.prior_cv * 100, (*own)[0], (*own)[1]);
      if (c->decision->verdict == CostVerdict::undecided) {
        if (facts.own_variance_pct)
          why += fmt::format("; the hosts' own step times carry {:.0f} % of the interval's variance: more steps a host "
                             "(measure.max_steps, measure.max_seconds) would narrow it more than more hosts",
                             *facts.own_variance_pct);
        if (c->hosts->more_hosts && c->hosts->more_baseline_hosts)
          why += fmt::format("; about {} more host{} of {} and {} of {} would likely decide it (measure them all, then "
                             "decide once: deciding again after each added host until it decides gave 10-17 % false "
                             "verdicts instead of at most 5 % in simulation, docs/statistics.md)",
                             *c->hosts->more_hosts, *c->hosts->more_hosts == 1 ? "" : "s", c->configuration,
                             *c->hosts->more_baseline_hosts, base->configuration);
        else
          why += "; no number of hosts up to 20 a side would likely decide it at this estimate";
      }
    }
    c->decision->reason = why + (facts.rule.empty() ? "" : "; " + facts.rule);
  }
}

}  // namespace pperf
