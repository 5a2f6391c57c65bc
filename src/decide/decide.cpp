#include "src/decide/decide.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "src/core/decide_record.h"
#include "src/core/input_error.h"
#include "src/core/json_view.h"
#include "src/core/utc_time.h"
#include "src/compare/compare.h"
#include "src/stats/intervals.h"
#include "src/stats/replicates.h"
#include "src/stats/stats.h"
#include "pricing/cost_model.h"
#include "pricing/pricing_stage.h"
#include "pricing/table_provenance.h"

namespace pperf {

using nlohmann::json;

const std::vector<std::string>& match_fields() {
  static const std::vector<std::string> fields{"preset", "batch_size", "samples_per_step", "params", "seed", "dataset",
                                               "model", "precision", "version", "emulation", "discount"};
  return fields;
}

std::optional<double> utc_seconds(const std::string& timestamp) {
  std::tm tm{};
  std::istringstream in(timestamp);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  if (in.fail()) return std::nullopt;
  return static_cast<double>(timegm(&tm));
}

std::string spread_instance_type(const Result& r) {
  for (const auto& g : r.instances)
    if (g.role == "dnn") return g.type;
  return r.instances.empty() ? "" : r.instances.front().type;
}

std::string spread_key(const Result& r) {
  return fmt::format("{} | {}/{} batch {} | {}", spread_instance_type(r), r.workload, r.preset, r.batch_size,
                     !r.execution || r.execution->emulated ? "emulated" : "native");
}

namespace {

/// One measured result of one source.
struct Entry {
  const DecideSource* source = nullptr;
  size_t index = 0;  // in the source's results
  const Result* result = nullptr;
  std::string host_id;
  std::string pointer(const std::string& member = "") const {
    return fmt::format("/results/{}{}", index, member.empty() ? "" : "/" + member);
  }
};

std::string host_id_of(const RunReport& run) {
  if (run.placement) return run.placement->host_id;
  return "hostname " + host_fact(run.host, {"hostname"});
}

std::string major_version(const std::string& version) { return version.substr(0, version.find('.')); }

/// A match field's value in `e` as text (and where it lives), "" when the result does not record it.
std::pair<std::string, std::string> field_value(const Entry& e, const std::string& field) {
  const Result& r = *e.result;
  if (field == "preset") return {r.preset, "preset"};
  if (field == "batch_size") return {std::to_string(r.batch_size), "batch_size"};
  if (field == "samples_per_step") return {std::to_string(r.samples_per_step), "samples_per_step"};
  if (field == "params") return {r.params.is_object() ? r.params.dump() : "", "params"};
  if (field == "seed") return {r.seed ? std::to_string(*r.seed) : "", "seed"};
  if (field == "dataset") return {r.data ? r.data->source + " (" + std::to_string(r.data->samples) + " samples)" : "", "data"};
  if (field == "model") return {r.model ? std::to_string(r.model->params) + " parameters" : "", "model/params"};
  if (field == "precision") return {r.model ? r.model->precision : "", "model/precision"};
  if (field == "version") return {"pperf " + major_version(e.source->run.tool_version) + ".x", "/tool/version"};
  if (field == "emulation")
    return {r.execution ? (r.execution->emulated ? "emulated" : "native") : "", "execution/emulated"};
  if (field == "discount") return {fmt::format("{:g} %", e.source->run.discount_pct), "/pricing/discount_pct"};
  return {"", ""};
}

std::string where(const Entry& e, const std::string& member) {
  return member.rfind('/', 0) == 0 ? member : e.pointer(member);
}

std::vector<InstanceGroup> groups_of(const Result& r) {
  std::vector<InstanceGroup> groups;
  for (const auto& g : r.instances) {
    InstanceGroup group{g.type, g.count, g.role, g.market, std::nullopt};
    if (g.price_basis == "override") group.usd_per_hour = g.usd_per_hour_each;  // a negotiated price stays
    groups.push_back(group);
  }
  return groups;
}

std::string groups_text(const Result& r) {
  std::string out;
  for (const auto& g : r.instances) out += fmt::format("{}{} x {} ({})", out.empty() ? "" : " + ", g.count, g.type, to_string(g.market));
  return out;
}

/// A configuration of one workload: its replicates (one per host) and what was made of them.
struct Configuration {
  std::string name;
  std::vector<Entry> replicates;
  std::optional<PooledHosts> own;     // pool_hosts; nullopt: a host without an interval of its mean
  std::optional<PooledHosts> pooled;  // own with the stated prior where nothing measured the spread
  std::optional<NoInterval> no_interval;  // the host without one
  Result result;                      // the pooled, priced result
};

/// The inputs' results, matched: each workload's configurations by name, in the order they came.
struct Matched {
  std::vector<std::string> workloads;
  std::map<std::string, std::vector<Configuration>> by_workload;
};

// ---- stage 1: match --------------------------------------------------------------------------

/// Guarantees no run is given twice (the same start, config and host: one host would count as
/// two); throws the InputError naming the second.
void refuse_repeated_runs(const DecideRequest& request) {
  for (size_t i = 0; i < request.sources.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const RunReport &a = request.sources[j].run, &b = request.sources[i].run;
      if (a.started_at == b.started_at && a.config_sha256 == b.config_sha256 && host_id_of(a) == host_id_of(b))
        throw InputError(request.sources[i].name, "/started_at",
                         fmt::format("the same run as {} (started {} on {}): give each run once", request.sources[j].name,
                                     a.started_at, host_id_of(a)));
    }
}

/// Every result of every source grouped by workload, each workload's configurations by name and
/// each configuration's replicates by host. Guarantees each is of a `pperf run`, ok and measured,
/// and one result per host and configuration; throws the InputError naming the source and
/// result otherwise.
Matched group_results(const DecideRequest& request) {
  Matched m;
  for (const auto& source : request.sources) {
    if (source.run.command != "run")
      throw InputError(source.name, "/command",
                       "'" + source.run.command + "' results: decide needs step times measured by `pperf run`");
    if (source.run.results.empty()) throw InputError(source.name, "/results", "no results in the file");
    for (size_t i = 0; i < source.run.results.size(); ++i) {
      const Result& r = source.run.results[i];
      Entry e{&source, i, &r, host_id_of(source.run)};
      if (r.status != ResultStatus::ok)
        throw InputError(source.name, e.pointer("status"),
                         fmt::format("configuration '{}' {}{}: decide needs every result measured (leave the file out or "
                                     "measure it again)",
                                     r.configuration, to_string(r.status), r.reason.empty() ? "" : " (" + r.reason + ")"));
      if (!r.measured || !r.measurement || !r.step)
        throw InputError(source.name, e.pointer("measured"),
                         fmt::format("configuration '{}' was not measured (a given step time): decide needs measured steps",
                                     r.configuration));
      auto& configurations = m.by_workload[r.workload];
      if (configurations.empty()) m.workloads.push_back(r.workload);
      auto c = std::find_if(configurations.begin(), configurations.end(), [&](const Configuration& x) { return x.name == r.configuration; });
      if (c == configurations.end()) c = configurations.insert(configurations.end(), Configuration{r.configuration, {}, {}, {}, {}, {}});
      for (const auto& other : c->replicates)
        if (other.host_id == e.host_id)
          throw InputError(source.name, e.pointer("configuration"),
                           fmt::format("configuration '{}' was measured on host {} by {} too: decide pools one result per "
                                       "host (set PPERF_HOST_ID to tell hosts apart)",
                                       r.configuration, e.host_id, other.source->name));
      c->replicates.push_back(e);
    }
  }
  return m;
}

/// Apples and oranges: every result of a workload against its first, field by field
/// (match_fields). Guarantees every difference is one the request accepts, returned in the
/// order found; and that a configuration's replicates have the same instances. Throws the
/// InputError naming both sources and the field otherwise.
std::vector<AcceptedDifference> check_comparable(const DecideRequest& request, const Matched& m) {
  std::vector<AcceptedDifference> accepted;
  for (const auto& w : m.workloads) {
    const auto& configurations = m.by_workload.at(w);
    const Entry& first = configurations.front().replicates.front();
    for (const auto& c : configurations)
      for (const auto& e : c.replicates) {
        if (e.result == first.result) continue;
        for (const auto& field : match_fields()) {
          const auto [a, a_at] = field_value(first, field);
          const auto [b, b_at] = field_value(e, field);
          if (a == b || a.empty() || b.empty()) continue;
          if (!request.accepted.count(field))
            throw InputError(e.source->name, where(e, b_at),
                             fmt::format("{} differs from {} {} ({} vs {}): the two are not comparable; pass --accept {} "
                                         "to decide anyway",
                                         field, first.source->name, where(first, a_at), b, a, field));
          accepted.push_back({field, {first.source->name, e.source->name}, {a, b},
                              std::vector<std::string>{where(first, a_at), where(e, b_at)}});
        }
      }
    for (const auto& c : configurations)
      for (const auto& e : c.replicates)
        if (groups_text(*e.result) != groups_text(*c.replicates.front().result))
          throw InputError(e.source->name, e.pointer("instances"),
                           fmt::format("configuration '{}' has other instances here ({}) than in {} ({}): replicates must "
                                       "be the same configuration",
                                       c.name, groups_text(*e.result), c.replicates.front().source->name,
                                       groups_text(*c.replicates.front().result)));
  }
  return accepted;
}

// ---- stage 2: the baseline -------------------------------------------------------------------

/// The configuration decided against: --baseline's, which some result must have, else the one
/// the results mark. Guarantees a name that some workload holds; throws the InputError naming
/// --baseline otherwise (none marked, two marked, or a name in no result).
std::string choose_baseline(const DecideRequest& request, const Matched& m) {
  if (request.baseline) {
    std::vector<std::string> names;
    for (const auto& w : m.workloads)
      for (const auto& c : m.by_workload.at(w))
        if (std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
    if (std::find(names.begin(), names.end(), *request.baseline) == names.end())
      throw InputError("pperf decide", "--baseline",
                       fmt::format("configuration '{}' is in none of the results (they hold: {})", *request.baseline,
                                   fmt::join(names, ", ")));
    return *request.baseline;
  }
  std::set<std::string> marked;
  for (const auto& w : m.workloads)
    for (const auto& c : m.by_workload.at(w))
      for (const auto& e : c.replicates)
        if (e.result->baseline) marked.insert(c.name);
  if (marked.empty())
    throw InputError("pperf decide", "--baseline", "no result is marked as the baseline: name the configuration to decide against");
  if (marked.size() > 1)
    throw InputError("pperf decide", "--baseline",
                     fmt::format("the results mark {} and {} as the baseline: name one", *marked.begin(), *std::next(marked.begin())));
  return *marked.begin();
}

// ---- stage 3: provenance ---------------------------------------------------------------------

/// The report's header (the first input's config, its discount and market; the one table;
/// the earliest start and latest end) and the record's inputs, each with its own placement,
/// machine, time after the first and the table it priced with, the table chosen, the prior
/// and the time apart. Guarantees one input row per source, in the order given.
void record_provenance(const DecideRequest& request, RunReport& report, DecideRecord& record) {
  report.command = "decide";
  const RunReport& lead = request.sources.front().run;
  report.config_name = lead.config_name;
  report.config_path = lead.config_path;
  report.config_sha256 = lead.config_sha256;
  report.discount_pct = lead.discount_pct;
  report.status = RunStatus::complete;
  const PriceTable& t = request.table;
  record_price_table(report, t);
  report.pricing_market = lead.pricing_market;
  std::optional<double> first_start, last_end;
  for (const auto& s : request.sources) {
    const auto start = utc_seconds(s.run.started_at), end = utc_seconds(s.run.finished_at);
    if (start && (!first_start || *start < *first_start)) first_start = start, report.started_at = s.run.started_at;
    if (end && (!last_end || *end > *last_end)) last_end = end, report.finished_at = s.run.finished_at;
  }
  const auto text_or_null = [](const std::string& text) { return text.empty() ? std::nullopt : std::optional<std::string>(text); };
  for (const auto& s : request.sources) {
    DecideInput& in = record.inputs.emplace_back();
    in.source = s.name;
    for (const auto& r : s.run.results) in.configurations.push_back(r.configuration);
    in.started_at = s.run.started_at;
    in.finished_at = text_or_null(s.run.finished_at);
    const auto start = utc_seconds(s.run.started_at);
    if (start && first_start) in.after_first_s = *start - *first_start;
    in.host_id = host_id_of(s.run);
    in.placement = s.run.placement;
    if (s.run.host.is_object()) {  // the input's own host facts (report.host is where it was decided)
      const JsonView host(s.run.host, s.name, "/host");
      if (const auto v = host.find_value("hostname")) in.machine.hostname = v->as_string();
      if (const auto v = host.find_value("cpu_model")) in.machine.cpu_model = v->as_string();
      if (const auto v = host.find_value("logical_cpus")) in.machine.logical_cpus = v->as_int();
    }
    in.tool_version = s.run.tool_version;
    in.config_sha256 = s.run.config_sha256;
    in.pricing = {s.run.pricing_table, s.run.pricing_retrieved, text_or_null(s.run.pricing_published),
                  text_or_null(s.run.pricing_sha256)};
  }
  record.pricing = {t.name, t.sha256, t.retrieved, text_or_null(t.published), request.table_choice};
  record.prior_cv = request.prior_cv;
  if (first_start && last_end) record.apart_s = *last_end - *first_start;
}

// ---- stage 4: pool ---------------------------------------------------------------------------

/// The pooled result of `c`'s replicates (not yet priced).
Result pooled_result(const Configuration& c) {
  Result r = *c.replicates.front().result;
  r.events.clear();
  r.spot.reset();  // its expected cost to train came from the run's own pricing
  r.decision.reset();
  r.comparison = Comparison{};
  HostPooling hosts;
  hosts.replicates = static_cast<int64_t>(c.replicates.size());
  for (const auto& e : c.replicates) hosts.host_ids.push_back(e.host_id), hosts.sources.push_back(e.source->name);
  std::vector<const Result*> results;
  for (const auto& e : c.replicates) results.push_back(e.result);
  PooledSamples pool = pool_samples(results);  // the same pooling as compare's runs
  Measurement& m = *r.measurement;
  m.step_ms = std::move(pool.step_ms);
  if (c.replicates.size() > 1) {
    m.data_wait_ms = std::move(pool.data_wait_ms);
    m.elapsed_s = pool.elapsed_s;
    r.spread = pool.spread;
    r.step->median_ms = median(m.step_ms);
    r.step->ci95_ms.reset();  // a median over hosts has no interval here
    r.step->lag1_autocorrelation.reset();
  }
  m.turns = Turns{};
  m.turns.schedule = Schedule::separate;
  if (c.pooled) {
    const PooledHosts& p = *c.pooled;
    hosts.between_host = to_string(p.source);
    if (p.source != BetweenHostSource::not_included) {
      hosts.between_host_cv = std::sqrt(p.tau2);
      if (p.source == BetweenHostSource::prior) hosts.prior_cv = std::sqrt(p.tau2);
      hosts.between_host_hosts = p.source == BetweenHostSource::replicates ? p.hosts : std::optional<int64_t>();
      r.step->mean_ms = std::exp(p.log_mean);
      const auto ci = separate_log_ratio_interval(PooledHosts{0, 0, 1e9}, p, 0.95);  // log mean +- t sd
      r.step->mean_ci95_ms = std::array<double, 2>{std::exp(ci[0]), std::exp(ci[1])};
      r.step->ci_nominal_level = 0.95;
    }
  }
  r.hosts = hosts;
  r.samples_per_s = r.samples_per_step / (r.step->mean_ms / 1000);
  r.data_wait_fraction = m.data_wait_fraction();
  return r;
}

/// One configuration's hosts pooled and its result priced: each host's mean with its interval
/// (pool_hosts; the history's spread where one host measured it; the stated prior where nothing
/// did), the replicates' steps together, re-priced from the one table at the report's discount.
/// Guarantees `c.result` priced, with `hosts`; `c.pooled` set, or `c.no_interval` naming the
/// first host without an interval of its mean. Throws the InputError naming the table for a
/// type it does not price.
void pool_configuration(Configuration& c, const std::string& workload, const DecideRequest& request, double discount_pct) {
  std::vector<HostMean> means;
  for (const auto& e : c.replicates) {
    const auto m = host_mean(e.result->measurement->step_ms);
    if (!m) {
      c.no_interval = NoInterval{workload, c.name, e.source->name, e.host_id,
                                 static_cast<int64_t>(e.result->measurement->step_ms.size())};
      break;
    }
    means.push_back(*m);
  }
  if (!c.no_interval) {
    const auto spread = request.history_spread.find(spread_key(*c.replicates.front().result));
    c.own = pool_hosts(means, spread == request.history_spread.end() ? std::nullopt : std::optional<ExternalSpread>(spread->second));
    c.pooled = with_prior(*c.own, request.prior_cv);
  }
  c.result = pooled_result(c);
  const PriceTable& t = request.table;
  try {
    c.result.instances = price_groups(groups_of(c.result), t);
  } catch (const std::invalid_argument& e) {
    throw InputError("pperf decide", request.table_choice == "--pricing" ? "--pricing" : "table " + t.name,
                     fmt::format("{} (configuration '{}' of {})", e.what(), c.name, c.replicates.front().source->name));
  }
  CostInput input;
  input.groups = c.result.instances;
  input.discount_pct = discount_pct;
  input.step = *c.result.step;
  input.samples_per_step = static_cast<double>(c.result.samples_per_step);
  if (c.result.cost && c.result.cost->to_train) input.steps_to_train = c.result.cost->to_train->steps;
  c.result.cost = price(input);
}

// ---- stage 5: decide -------------------------------------------------------------------------

/// The widest gap, in seconds, between a start of `base`'s runs and one of `c`'s.
double seconds_apart(const Configuration& base, const Configuration& c) {
  double apart = 0;
  for (const auto& a : base.replicates)
    for (const auto& b : c.replicates) {
      const auto sa = utc_seconds(a.source->run.started_at), sb = utc_seconds(b.source->run.started_at);
      if (sa && sb) apart = std::max(apart, std::abs(*sb - *sa));
    }
  return apart;
}

/// `c` decided against `base`, unpaired: the interval of the ratio of their pooled means (with
/// the prior where a side's spread was not measured) against the price ratio at both ends of any
/// price range. Guarantees `c.result`'s comparison; its decision where the baseline is priced,
/// with what its reason is made of (time apart, the hosts' own interval beside the prior's, the
/// own steps' share of the variance, more hosts that would decide it) in `facts`, the reason
/// itself left for reports/decide_text.h.
void decide_candidate(Configuration& c, const Configuration& base, const DecideRequest& request, DecideReasonFacts& facts) {
  const DecisionSettings& settings = request.decision;
  Result& r = c.result;
  r.hosts->apart_s = seconds_apart(base, c);
  std::optional<std::array<double, 2>> ratio;
  if (c.pooled && base.pooled) {
    const auto log_ratio = decision_log_ratio_interval(*base.own, *c.own, request.prior_cv, settings.confidence);
    ratio = std::array<double, 2>{std::exp(log_ratio[0]), std::exp(log_ratio[1])};
  }
  const Result& b = base.result;
  r.comparison = compare({*r.cost, *r.step, &r.measurement->step_ms}, {*b.cost, *b.step, &b.measurement->step_ms}, false, ratio);
  if (!(b.cost->usd_per_hour > 0)) return;
  const PriceRatio price_ratio = price_ratio_of(*r.cost, *b.cost);
  Decision d = decide_fixed(ratio, price_ratio, settings);
  d.method = "random-effects interval over hosts measured apart";
  facts.rule = d.reason;
  if (c.pooled && base.pooled) {
    if (c.pooled->source == BetweenHostSource::prior || base.pooled->source == BetweenHostSource::prior) {
      // One host a side (or on one side) and no history: the machine is not told from the type
      // but by the prior; what the hosts' own intervals alone would say, for comparison.
      facts.own_improvement_pct_bounds =
          improvement_bounds(separate_log_ratio_interval(*base.own, *c.own, settings.confidence), price_ratio);
      r.hosts->improvement_pct_ci95_with_prior = d.improvement_pct_bounds;
    }
    if (d.verdict == CostVerdict::undecided) {
      // Where the hosts' own step times carry most of the interval, more steps a host narrow it
      // and more hosts barely do.
      const auto hosts_of = [](const PooledHosts& p) { return static_cast<double>(p.hosts); };
      const double own = base.pooled->mean_host_variance / hosts_of(*base.pooled) + c.pooled->mean_host_variance / hosts_of(*c.pooled);
      const double between = base.pooled->tau2 / hosts_of(*base.pooled) + c.pooled->tau2 / hosts_of(*c.pooled);
      if (own > between) facts.own_variance_pct = 100 * own / (own + between);
      const double tau2 = std::max(c.pooled->tau2, base.pooled->tau2);
      if (const auto more = more_hosts_to_decide(*base.pooled, *c.pooled, tau2, price_ratio, settings)) {
        r.hosts->more_hosts = more->candidate;
        r.hosts->more_baseline_hosts = more->baseline;
      }
    }
  }
  d.reason.clear();  // reports/decide_text.h writes it (decide_reasons)
  r.decision = d;
}

/// Throws the InputError for inputs that decide nothing: one configuration, or configurations of
/// no workload in common with the baseline (results of different configs named both).
[[noreturn]] void refuse_nothing_decided(const DecideRequest& request, const std::string& baseline) {
  std::set<std::string> names;
  for (const auto& s : request.sources)
    for (const auto& r : s.run.results) names.insert(r.configuration);
  if (names.size() == 1)
    throw InputError("pperf decide", "RESULTS",
                     fmt::format("only configuration '{}' in the results ({} file{}): decide needs the baseline and another "
                                 "configuration of the same workload",
                                 *names.begin(), request.sources.size(), request.sources.size() == 1 ? "" : "s"));
  for (size_t i = 1; i < request.sources.size(); ++i) {
    const RunReport &a = request.sources.front().run, &b = request.sources[i].run;
    if (a.config_sha256 != b.config_sha256)
      throw InputError(request.sources[i].name, "/config_sha256",
                       fmt::format("results of config '{}' ({}), {} of config '{}' ({}): no workload of theirs has the "
                                   "baseline '{}' and another configuration measured, so nothing is decided",
                                   b.config_name, b.config_sha256.substr(0, 12), request.sources.front().name, a.config_name,
                                   a.config_sha256.substr(0, 12), baseline));
  }
  throw InputError("pperf decide", "RESULTS",
                   fmt::format("no workload has the baseline '{}' and another configuration measured (or priced): nothing "
                               "is decided",
                               baseline));
}

}  // namespace

std::optional<ExternalSpread> spread_from_runs(const std::vector<RunReport>& runs, const Result& like,
                                               const std::vector<DecideSource>& decided) {
  const std::string key = spread_key(like);
  std::set<std::string> decided_hosts;
  for (const auto& d : decided) decided_hosts.insert(host_id_of(d.run));
  std::map<std::string, std::pair<double, HostMean>> newest;  // host id -> (start, its mean)
  for (const auto& run : runs) {
    if (run.command != "run") continue;
    const std::string host = host_id_of(run);
    if (decided_hosts.count(host)) continue;
    const auto start = utc_seconds(run.started_at).value_or(0);
    for (const auto& r : run.results) {
      if (r.status != ResultStatus::ok || !r.measurement || spread_key(r) != key) continue;
      const auto m = host_mean(r.measurement->step_ms);
      if (!m) continue;
      const auto it = newest.find(host);
      if (it == newest.end() || it->second.first <= start) newest[host] = {start, *m};
    }
  }
  std::vector<HostMean> means;
  for (const auto& [host, m] : newest) means.push_back(m.second);
  return external_spread(means);
}

DecideOutcome decide_separate(const DecideRequest& request) {
  if (request.sources.empty()) throw InputError("pperf decide", "RESULTS", "no results given");
  refuse_repeated_runs(request);
  // Later runs of one config on one host, in turns: replicates pooled as paired (src/stats/replicates.h).
  std::vector<LaterRun> later;
  for (const auto& s : request.sources) later.push_back({s.name, host_id_of(s.run), &s.run});
  const auto ratio = [](const Result& candidate, const Result& baseline) { return price_ratio_of(*candidate.cost, *baseline.cost); };
  if (auto replicated = pool_later_runs(later, ratio, request.decision)) return {std::move(*replicated)};
  Matched m = group_results(request);
  auto record = std::make_shared<DecideRecord>();
  record->accepted = check_comparable(request, m);
  const std::string baseline = choose_baseline(request, m);
  DecideOutcome out;
  RunReport& report = out.report;
  record_provenance(request, report, *record);
  for (const auto& w : m.workloads) {
    auto& configurations = m.by_workload[w];
    // Baseline first, then the others as they came.
    std::stable_partition(configurations.begin(), configurations.end(), [&](const Configuration& c) { return c.name == baseline; });
    for (auto& c : configurations) {
      pool_configuration(c, w, request, report.discount_pct);
      c.result.baseline = c.name == baseline;
      if (c.no_interval) record->no_interval.push_back(*c.no_interval);
    }
    const Configuration& base = configurations.front();
    for (auto& c : configurations) {
      if (base.name != baseline) {  // no result of the baseline: priced, not decided
        report.results.push_back(c.result);
        continue;
      }
      if (c.name == baseline) {
        Result& r = c.result;
        r.comparison = compare({*r.cost, *r.step, &r.measurement->step_ms}, {*base.result.cost, *base.result.step, nullptr}, true);
      } else {
        DecideReasonFacts facts{w, c.name, std::nullopt, std::nullopt, ""};
        decide_candidate(c, base, request, facts);
        if (c.result.decision) record->reasons.push_back(facts);
      }
      report.results.push_back(c.result);
    }
  }
  if (std::none_of(report.results.begin(), report.results.end(), [](const Result& r) { return r.decision.has_value(); }))
    refuse_nothing_decided(request, baseline);
  report.decide = record;
  return out;
}

}  // namespace pperf
