// `pperf project --config C [--table T] [--region R] [--out P.json]`: one measurement (or the
// config's given step times) projected across a price catalog (src/project): the cheapest
// cluster per workload, the knee, the top N with intervals, and a config to measure next.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "src/cli/cli.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "src/history/history.h"
#include "src/measure/pipeline_probe.h"
#include "src/project/next_config.h"
#include "src/project/report.h"
#include "reports/console.h"

namespace pperf::cli {

namespace {
using project::Candidate;
using project::Measured;
using project::Range;
using project::SpeedFactor;

const InstanceGroup* group_of(const Configuration& c, const std::string& role) {
  for (const auto& g : c.instances)
    if (g.role == role) return &g;
  return nullptr;
}

/// The half-width of a result's mean step CI relative to the mean; below the runner's 6 steps
/// for one, 1.96 CV / sqrt(n), widened for lag-1 autocorrelation rho by sqrt((1 + rho) / (1 - rho)).
double relative_ci(const Result& r) {
  if (!r.step || r.step->mean_ms <= 0) return 0;
  if (r.step->mean_ci95_ms) return ((*r.step->mean_ci95_ms)[1] - (*r.step->mean_ci95_ms)[0]) / 2 / r.step->mean_ms;
  if (!r.spread || !r.measurement || r.measurement->step_ms.size() < 2) return 0;
  const double rho = std::clamp(r.step->lag1_autocorrelation.value_or(0), 0.0, 0.9);
  return 1.96 * r.spread->cv / std::sqrt(static_cast<double>(r.measurement->step_ms.size())) * std::sqrt((1 + rho) / (1 - rho));
}

/// What a measured result says of its pipeline and trainer (the runner's CPU accounting:
/// src/measure/executor.cpp's busy fractions, times the wall time and the CPUs they are of).
Measured measured_from(const Result& r, int64_t logical_cpus, const std::string& file, double* data_cores = nullptr) {
  if (!r.measurement || !r.step || !r.bottleneck || !r.execution || r.measurement->step_ms.empty())
    throw InputError(file, "", "result " + r.workload + " x " + r.configuration + " has no measurement to project from");
  const ExecutionReport& e = *r.execution;
  const double steps = static_cast<double>(r.measurement->step_ms.size());
  const double wall_s = r.measurement->elapsed_s;
  const auto size_of = [&](const std::vector<int>& set) { return static_cast<double>(set.empty() ? logical_cpus : static_cast<int64_t>(set.size())); };
  const double data_set = e.data_mode == DataMode::local ? size_of(e.cpus) : size_of(e.data_cpus);
  const double capacity = std::min(static_cast<double>(std::max<int64_t>(1, e.data_workers)), data_set);
  const double data_cpu_s = r.bottleneck->data_cpu_pct.value_or(0) / 100 * wall_s * capacity;
  if (data_cores) *data_cores = capacity;
  const double trainer_cpu_s = r.bottleneck->trainer_cpu_pct / 100 * wall_s * size_of(e.cpus);
  Measured m;
  m.workload = r.workload;
  m.samples_per_step = r.samples_per_step;
  const double rel = relative_ci(r);
  m.pipeline_cpu_s_per_sample = Range::relative(data_cpu_s / (steps * static_cast<double>(r.samples_per_step)), rel);
  m.trainer_cpu_s_per_step = trainer_cpu_s / steps;
  const WorkloadDescriptor* d = builtin_workloads().find(r.workload);
  const bool own_process = d && d->capabilities.steps_as_own_ranks;  // its CPU time is not this process's
  const bool on_cpu = e.device == "cpu" && !own_process;
  const double trainer_ms = on_cpu ? 1000 * m.trainer_cpu_s_per_step / static_cast<double>(std::max<int64_t>(1, e.threads_effective))
                                   : r.step->mean_ms * (1 - r.data_wait_fraction.value_or(0));
  m.trainer_step_ms = Range::relative(trainer_ms, rel);
  m.pipeline_source = fmt::format("measured here: {} ({:.3g} data CPU-s over {:.0f} steps of {})", r.configuration, data_cpu_s, steps,
                                  r.samples_per_step);
  if (d && !d->capabilities.data_workers) {
    m.pipeline_absent = fmt::format("workload {} has no input pipeline a data worker can run (its step makes its own input)", r.workload);
    m.pipeline_source = "not measured: " + m.pipeline_absent;
    m.pipeline_cpu_s_per_sample = Range::point(0);
  } else if (!r.bottleneck->data_cpu_pct) {
    m.pipeline_absent = fmt::format("{} ran no pipeline pperf can time apart (the step makes its own input, or its workers are remote)",
                                    r.configuration);
    m.pipeline_source = "not measured: " + m.pipeline_absent;
  }
  m.trainer_source = own_process ? fmt::format("measured here ({}): its mean step (the step runs in a process of its own)", r.configuration)
                   : on_cpu ? fmt::format("measured here on the CPU ({}): its CPU time per step / {} thread(s)", r.configuration,
                                          e.threads_effective)
                            : fmt::format("measured on {} ({}): mean step less its data wait", e.device, r.configuration);
  return m;
}

/// Per-core speed factors relative to this host, by family, from the history's native runs
/// (results: emulated false) of the same workload and preset with the pipeline on the trainer's
/// instance (local data): this host's CPU-seconds per sample / theirs. The newest run per family.
std::map<std::string, SpeedFactor> history_factors(const std::string& db, const Measured& here, const WorkloadSpec& spec) {
  std::map<std::string, SpeedFactor> found;
  const History history(db, History::Mode::read);
  for (const HistoryRun& run : history.list(std::nullopt, std::nullopt, std::nullopt, true)) {
    const std::optional<std::string> text = history.results_text(run.id);
    if (!text) continue;
    const std::string name = fmt::format("{} run {}", db, run.id);
    RunReport report;
    try {
      report = results_from_json(nlohmann::json::parse(*text), name);
    } catch (const std::exception&) {
      continue;  // a run this pperf cannot read says nothing of speed
    }
    int64_t logical = 1;
    if (report.host.contains("logical_cpus") && report.host["logical_cpus"].is_number_integer()) logical = report.host["logical_cpus"].get<int64_t>();
    for (const Result& r : report.results) {
      if (r.workload != spec.name || r.preset != spec.preset || r.status != ResultStatus::ok || !r.execution ||
          r.execution->emulated || r.execution->data_mode != DataMode::local || !r.bottleneck || !r.bottleneck->data_cpu_pct)
        continue;
      const auto dnn = std::find_if(r.instances.begin(), r.instances.end(), [](const PricedGroup& g) { return g.role == "dnn"; });
      if (dnn == r.instances.end()) continue;
      Measured there;
      try {
        there = measured_from(r, logical, name);
      } catch (const InputError&) {
        continue;
      }
      const Range& a = here.pipeline_cpu_s_per_sample;
      const Range& b = there.pipeline_cpu_s_per_sample;
      if (b.value <= 0) continue;
      const double b_lo = std::max(b.lo, b.value / 100);  // a noisy run's CI may reach past 0: a cost is not
      const std::string family = project::family_of(dnn->type);
      found[family] = SpeedFactor{family, {a.value / b.value, a.lo / b.hi, a.hi / b_lo},
                                  fmt::format("history: run {} of {} on {} ({} natively: {:.4g} vs {:.4g} CPU-ms/sample here)", run.id,
                                              run.config_name, run.hostname, dnn->type, b.value * 1e3, a.value * 1e3)};
    }
  }
  return found;
}

/// `spec` with every param the workload declares (a priced-only config's workloads are labels:
/// their specs hold only what the config wrote); the same spec when the workload is unknown.
WorkloadSpec completed(const WorkloadSpec& spec) {
  const WorkloadDescriptor* d = builtin_workloads().find(spec.name);
  if (!d || (!spec.preset.empty() && !d->find_preset(spec.preset))) return spec;
  nlohmann::json overrides = nlohmann::json::object();
  for (const auto& [key, value] : spec.params.items())
    if (d->find_param(key)) overrides[key] = value;
  WorkloadSpec full = make_workload_spec(*d, spec.preset, spec.batch_size, overrides, spec.seed);
  full.config_dir = spec.config_dir;
  return full;
}

/// Bytes of one batch as the model takes it (the workload's declared batch layout: what a data
/// worker sends, its framing aside); nullopt when the workload declares none.
std::optional<double> batch_bytes(const WorkloadSpec& spec) {
  const WorkloadDescriptor* d = builtin_workloads().find(spec.name);
  if (!d || !d->batch_layout) return std::nullopt;
  std::vector<TensorDecl> layout;
  try {
    layout = d->batch_layout(completed(spec));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::map<std::string, double> size = {{"float32", 4}, {"int64", 8}, {"int32", 4}, {"uint8", 1}, {"bfloat16", 2}};
  double per_sample = 0;
  for (const auto& t : layout) {
    const auto it = size.find(t.dtype);
    if (it == size.end()) return std::nullopt;
    double n = it->second;
    for (int64_t dim : t.shape) n *= static_cast<double>(dim);
    per_sample += n;
  }
  return layout.empty() ? std::nullopt : std::optional<double>(per_sample * static_cast<double>(spec.batch_size));
}

/// The pipeline of `spec` measured alone on this host (a priced-only config gives only the
/// trainer's step): 1 thread, then every CPU at once for its scaling.
void probe_pipeline_here(const WorkloadSpec& spec, int64_t logical_cpus, Measured& m) {
  const WorkloadDescriptor* d = builtin_workloads().find(spec.name);
  if (!d || !d->make_pipeline || !d->capabilities.data_workers) {
    m.pipeline_absent = "the workload's step makes its own input: pperf cannot time its pipeline apart";
    m.pipeline_source = "not measured: " + m.pipeline_absent;
    return;
  }
  try {
    const PipelineProbe one = probe_pipeline(*d, completed(spec), 1, 1.0);
    m.pipeline_cpu_s_per_sample = Range::relative(one.cpu_s_per_sample, one.rel_ci95);
    m.pipeline_source = fmt::format("measured here: the workload's pipeline alone ({} batches of {} on 1 thread, {:.3g} s)", one.batches,
                                    spec.batch_size, one.wall_s);
    if (logical_cpus > 1 && one.cpu_s_per_sample > 0) {
      const PipelineProbe all = probe_pipeline(*d, completed(spec), static_cast<int>(logical_cpus), 1.0);
      if (all.cpu_s_per_sample > 0) {
        const Range& a = m.pipeline_cpu_s_per_sample;
        const Range b = Range::relative(all.cpu_s_per_sample, all.rel_ci95);
        m.scaling_efficiency = {a.value / b.value, a.lo / b.hi, a.hi / b.lo};
        m.scaling_cores = logical_cpus;
        m.pipeline_source += fmt::format("; scaling from 1 to {} threads at once: {} batches, {:.4g} CPU-ms/sample", logical_cpus,
                                         all.batches, all.cpu_s_per_sample * 1e3);
      }
    }
  } catch (const std::exception& e) {
    m.pipeline_absent = fmt::format("its pipeline could not run on this host ({})", e.what());
    m.pipeline_source = "not measured: " + m.pipeline_absent;
  }
}

std::string default_next_path(const Parsed& p, const Config& config) {
  if (p.has("out")) {
    std::string out = p.string("out");
    if (out.size() > 5 && out.compare(out.size() - 5, 5, ".json") == 0) out.resize(out.size() - 5);
    return out + ".next.json";
  }
  return "results/" + config.name + ".next.json";
}

int64_t count_flag(const Parsed& p, const std::string& flag) {
  const std::string text = p.string(flag);
  const auto n = positive_integer(text);
  if (!n) throw InputError("--" + flag, "", "expected a whole number > 0, got '" + text + "'");
  return *n;
}

double number_flag(const Parsed& p, const std::string& flag) {
  const std::string text = p.string(flag);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
    throw InputError("--" + flag, "", "expected a number > 0, got '" + text + "'");
  return v;
}
}  // namespace

int command_project(const std::vector<std::string>& args) {
  auto options = config_options("project");
  options.add_options()("table", po::value<std::string>(), "price table (name or file; default: the config's pricing.table)")(
      "region", po::value<std::string>(), "region of the table (default: the config's, else the table's only one)")(
      "out", po::value<std::string>(), "write the projection as JSON (schemas/projection.schema.json)")(
      "html", po::value<std::string>(), "write an HTML page with the chart (USD per 1M samples vs data instances)")(
      "next", po::value<std::string>(), "where to write the configuration to measure next (default: beside --out, else results/)")(
      "results", po::value<std::string>(), "project from this results file of the config (pperf run) instead of measuring")(
      "trainer-step-ms", po::value<std::string>(), "the trainer's step with its input ready, ms (e.g. from a GPU run)")(
      "max-data", po::value<std::string>()->default_value("4"), "data instances per trainer group to consider: 1..N")(
      "top", po::value<std::string>()->default_value("10"), "rows of the table printed")(
      "link-gbps", po::value<std::string>(), "the data link's bandwidth, Gbit/s (the tables carry none: unmodelled without it)");
  options.add_options()("history", po::value<std::string>(),
                        "read per-core speed factors of instance families from the native runs in this history (file or postgresql:// URI)");
  Parsed p = parse("project", options, args);
  if (p.help) return std::cout << options, kExitOk;
  const int64_t max_data = count_flag(p, "max-data");
  const size_t top = static_cast<size_t>(count_flag(p, "top"));
  std::optional<double> trainer_step_ms;
  if (p.has("trainer-step-ms")) trainer_step_ms = number_flag(p, "trainer-step-ms");
  project::ModelSettings settings;
  if (p.has("link-gbps")) settings.link_gbit_per_s = number_flag(p, "link-gbps");

  SessionRequest request = session_request(p);
  {  // The reference (the baseline) alone is measured: load once to name it.
    const RunSession probe(request);
    request.filter.configurations = {probe.config().baseline().name};
  }
  const RunSession session(request);
  const Config& config = session.config();
  const Configuration& reference = config.baseline();
  const InstanceGroup* trainer_group = group_of(reference, "dnn");
  const size_t reference_index = static_cast<size_t>(&reference - config.configurations.data());
  if (!trainer_group)
    throw InputError(config.path, fmt::format("{}/instances", reference.pointer), "the baseline has no trainer group (role \"dnn\")");
  // A config without a data group projects the data side from its pipeline: measured with the
  // trainer (a runnable config's local loader), or alone here (a priced-only config, whose given
  // step is then the trainer's own: nothing in it says the step waited for input).
  const bool has_data_group = std::any_of(config.configurations.begin(), config.configurations.end(),
                                          [](const Configuration& c) { return group_of(c, "data") != nullptr; });
  // A config this host cannot run (e.g. a CUDA trainer here) projects from --trainer-step-ms (the
  // trainer's own step, measured where it runs) and its pipeline timed alone here.
  const bool reference_not_runnable_here = std::any_of(session.plan().items.begin(), session.plan().items.end(),
                                                       [](const PlanItem& item) { return !item.not_runnable_here.empty(); });
  const bool trainer_elsewhere = !config.priced_only && !p.has("results") && trainer_step_ms && reference_not_runnable_here;
  const bool trainer_given = (config.priced_only && !has_data_group) || trainer_elsewhere;
  const bool pipeline_here = !config.priced_only || trainer_given;  // its cost is in this host's cores
  if (config.priced_only && group_of(reference, "data"))
    throw InputError(config.path, reference.pointer + "/instances",
                     "the baseline of a priced-only config must be homogeneous (no data group): its step is taken as input-bound");

  // The catalog: --table/--region, else the config's.
  const std::string table_name = p.has("table") ? p.string("table") : config.pricing.table;
  const std::string region = p.has("region") ? p.string("region") : config.pricing.region;
  PriceTable table;
  try {
    table = read_price_table(table_name);
  } catch (const InputError& e) {
    if (!p.has("table")) throw;
    throw InputError("--table", "", e.what());
  }
  try {
    table = load_price_table(table_name, region);
  } catch (const InputError& e) {
    throw InputError(p.has("region") ? "--region" : config.path, p.has("region") ? "" : "/pricing/region", e.what());
  }
  const InstanceSpec* trainer_spec = table.find(trainer_group->type);
  if (!trainer_spec)
    throw InputError(table.path, "/regions/" + table.region,
                     fmt::format("no instance '{}' (the trainer of {}'s {}/instances){}", trainer_group->type, config.path,
                                 reference.pointer, did_you_mean(trainer_group->type, table.types())));
  for (const auto& c : config.configurations)
    for (size_t g = 0; g < c.instances.size(); ++g)
      if (!table.find(c.instances[g].type))
        throw InputError(table.path, "/regions/" + table.region,
                         fmt::format("no instance '{}' (named at {}'s {}/instances/{}){}", c.instances[g].type, config.path,
                                     c.pointer, g, did_you_mean(c.instances[g].type, table.types())));
  const Market market = config.pricing.market;
  const std::string next_path = p.has("next") ? p.string("next") : default_next_path(p, config);
  if (p.has("out")) check_writable(p.string("out"), "--out");
  if (p.has("html")) check_writable(p.string("html"), "--html");
  check_writable(next_path, p.has("next") ? "--next" : "--out");
  if (p.has("history")) History(p.string("history"), History::Mode::read);  // a bad database fails before measuring

  // The measurement: given steps, a results file, or the reference measured now by the runner.
  std::vector<Result> results;
  std::string results_file = "the measurement";
  int64_t logical_cpus = HostCapacity::here().logical_cpus;
  if (config.priced_only) {
    results = given_results(session.plan());
  } else if (trainer_elsewhere) {
    for (const auto& item : session.plan().items) {
      Result r = item.result_skeleton();
      r.step = StepTimeEstimate{*trainer_step_ms, std::nullopt, *trainer_step_ms, std::nullopt};
      results.push_back(std::move(r));
    }
  } else if (p.has("results")) {
    results_file = p.string("results");
    RunReport run;
    try {
      run = read_results_file(results_file);
    } catch (const InputError& e) {
      throw InputError("--results", "", e.what());
    }
    if (run.config_name != config.name)
      throw InputError(results_file, "/config/name", fmt::format("results of config '{}', not of '{}'", run.config_name, config.name));
    if (run.host.contains("logical_cpus") && run.host["logical_cpus"].is_number_integer()) logical_cpus = run.host["logical_cpus"].get<int64_t>();
    results = run.results;
  } else {
    session.preflight(false, true);
    const std::atomic<bool>& stop = install_stop_handlers(true);
    MeasureObserver silent;
    std::cerr << fmt::format("pperf project: measuring {} ({}) on this host\n", reference.name, config.path);
    results = session.measure(session.executor_options(), stop, silent);
    if (stop) return kExitRuntime;
  }

  project::Projection out;
  out.config_path = config.path;
  out.config_name = config.name;
  out.table = table.name;
  out.table_path = table.path;
  out.region = table.region;
  out.market = to_string(market);
  out.settings = settings;
  out.reference_host = trainer_elsewhere ? "this host (the pipeline alone); the trainer's step given (--trainer-step-ms)"
                       : trainer_given   ? "this host (the pipeline alone); the trainers' steps given"
                       : config.priced_only ? "given step times (nothing measured)"
                                            : "this host";
  out.next_config_path = next_path;
  const std::string trainer_family = project::family_of(trainer_group->type);
  std::vector<std::string> not_projected;  // one line per workload whose measurement failed
  for (size_t w = 0; w < config.workloads.size(); ++w) {
    const WorkloadSpec& spec = config.workloads[w];
    const auto find = [&](const std::string& configuration) -> const Result* {
      for (const auto& r : results)
        if (r.workload == spec.name && r.configuration == configuration && r.status == ResultStatus::ok && r.step) return &r;
      return nullptr;
    };
    const Result* ref = find(reference.name);
    if (!ref) {  // the measurement failed: this workload is not projected, and the output says why
      std::string why = "no result";
      for (const auto& r : results)
        if (r.workload == spec.name && r.configuration == reference.name)
          why = to_string(r.status) + (r.reason.empty() ? "" : ": " + r.reason);
      if (config.priced_only || p.has("results"))
        throw InputError(results_file, "", fmt::format("no ok result of {} x {} to project from ({})", spec.name, reference.name, why));
      not_projected.push_back(fmt::format("workload {}: not projected: its measurement of {} here did not succeed ({})", spec.name,
                                          reference.name, why));
      continue;
    }
    project::WorkloadProjection wp;
    wp.trainer_type = trainer_group->type;
    wp.trainer_count = trainer_group->count;
    Measured& m = wp.measured;
    if (trainer_given) {
      m.workload = spec.name;
      m.samples_per_step = ref->samples_per_step;
      m.trainer_step_ms = Range::point(ref->step->mean_ms);
      m.trainer_source = fmt::format("given: {}'s step_time_ms, the trainer's own step (no configuration has a data group)", reference.name);
      std::cerr << fmt::format("pperf project: measuring {}'s pipeline alone on this host\n", spec.name);
      probe_pipeline_here(spec, logical_cpus, m);
    } else if (config.priced_only) {
      const int64_t vcpus = trainer_group->count * trainer_spec->vcpus;
      m.workload = spec.name;
      m.samples_per_step = ref->samples_per_step;
      m.pipeline_cpu_s_per_sample = Range::point(project::pipeline_cost_from_bound_step(ref->step->mean_ms, vcpus, ref->samples_per_step));
      m.pipeline_source = fmt::format("derived: the baseline's given {:.4g} ms/step taken as input-bound on its {} vCPUs", ref->step->mean_ms, vcpus);
      m.trainer_source = "not measured";
    } else {
      double ref_cores = 1;
      m = measured_from(*ref, logical_cpus, results_file, &ref_cores);
      // Scaling: a configuration of the same results whose pipeline ran on more cores; its
      // CPU-seconds per sample against the reference's (data workers: their transport included).
      for (const auto& r : results) {
        double cores = 0;
        if (r.workload != spec.name || r.configuration == reference.name || r.status != ResultStatus::ok || !r.bottleneck ||
            !r.bottleneck->data_cpu_pct)
          continue;
        Measured wide;
        try {
          wide = measured_from(r, logical_cpus, results_file, &cores);
        } catch (const InputError&) {
          continue;
        }
        if (cores <= ref_cores || cores <= static_cast<double>(m.scaling_cores) || wide.pipeline_cpu_s_per_sample.value <= 0) continue;
        const Range& one = m.pipeline_cpu_s_per_sample;
        const Range& all = wide.pipeline_cpu_s_per_sample;
        m.scaling_efficiency = {one.value / all.value, one.lo / all.hi, std::max(one.value / all.value, one.hi / std::max(all.lo, 1e-12))};
        m.scaling_cores = static_cast<int64_t>(cores);
        m.pipeline_source += fmt::format("; scaling from {:g} to {:g} cores: {} ({:.4g} CPU-ms/sample)", ref_cores, cores, r.configuration,
                                         all.value * 1e3);
      }
      // Measured now and no configuration ran the pipeline wider: its scaling from the pipeline
      // alone on 1 and on every CPU of this host.
      // (pperf's own pipeline only: a Python worker's is not the one the probe would time.)
      if (!p.has("results") && m.scaling_cores == 1 && m.pipeline_absent.empty() && logical_cpus > 1 &&
          reference.execution.data.worker == DataWorker::pperf) {
        Measured alone;
        probe_pipeline_here(spec, logical_cpus, alone);
        if (alone.pipeline_absent.empty() && alone.scaling_cores > 1) {
          m.scaling_efficiency = alone.scaling_efficiency;
          m.scaling_cores = alone.scaling_cores;
          m.pipeline_source += "; its scaling from the pipeline alone: " + alone.pipeline_source.substr(alone.pipeline_source.find("scaling from") + 13);
        }
      }
    }
    if (const auto bytes = batch_bytes(spec)) m.bytes_per_batch = *bytes * static_cast<double>(m.samples_per_step / std::max<int64_t>(1, spec.batch_size));
    if (trainer_step_ms) {
      m.trainer_step_ms = Range::point(*trainer_step_ms);
      m.trainer_source = "given (--trainer-step-ms)";
      m.trainer_cpu_s_per_step = 0;  // a GPU step's host CPU use is not known: not charged to the pool
    }
    // Speed factors: the reference family is 1 exactly when the pipeline cost is in its cores.
    std::map<std::string, SpeedFactor> factors;
    const std::string history_db = p.has("history") ? p.string("history") : "";
    if (!history_db.empty() && pipeline_here && m.pipeline_absent.empty()) factors = history_factors(history_db, m, spec);
    const auto factor_of = [&](const std::string& type) {
      const std::string family = project::family_of(type);
      auto it = factors.find(family);
      if (it != factors.end()) return it->second;
      SpeedFactor f = config.priced_only && !trainer_given && family == trainer_family
                          ? SpeedFactor{family, Range::point(1), "reference: the given step's own cores"}
                          : project::unmeasured_factor(family);
      if (pipeline_here) f.source = "relative to this host; " + f.source;
      return factors[family] = f;
    };
    // Data instances are projected only when the pipeline's cost is known. Given trainers' steps:
    // each configuration's trainer (and its scale-ups) with its own step.
    const int64_t data_max = m.pipeline_absent.empty() ? max_data : 0;
    std::set<std::string> seen;
    for (const auto& c : config.configurations) {
      const InstanceGroup* t = group_of(c, "dnn");
      if (!t || (!trainer_given && &c != &reference)) continue;
      Measured mc = m;
      if (trainer_given && c.step_time_ms) mc.trainer_step_ms = Range::point(*c.step_time_ms);
      for (const auto& cand : project::catalog_candidates(table, t->type, t->count, data_max, market))
        if (seen.insert(fmt::format("{}x{}+{}x{}", cand.trainer_count, cand.trainer_type, cand.data_count, cand.data_type)).second)
          wp.predictions.push_back(project::predict(mc, cand, factor_of(cand.trainer_type),
                                                    factor_of(cand.data_count ? cand.data_type : cand.trainer_type), settings));
    }
    std::stable_sort(wp.predictions.begin(), wp.predictions.end(), [](const project::Prediction& a, const project::Prediction& b) {
      return a.usd_per_1m_samples.value < b.usd_per_1m_samples.value;
    });
    wp.knee_vcpus_per_accelerator = project::knee_vcpus_per_accelerator(m, static_cast<double>(trainer_group->count) * trainer_spec->accelerators);
    if (m.pipeline_absent.empty()) wp.knee_data_instances = project::knee_data_instances(wp.predictions, trainer_group->type);
    // The config's own configurations: on this host by their CPU sets, or in the catalog.
    for (size_t ci = 0; ci < config.configurations.size(); ++ci) {
      const Configuration& c = config.configurations[ci];
      const InstanceGroup* t = group_of(c, "dnn");
      const InstanceGroup* d = group_of(c, "data");
      if (!t) continue;
      const InstanceSpec* ts = table.find(t->type);
      const InstanceSpec* ds = d ? table.find(d->type) : nullptr;
      Candidate cand;
      cand.trainer_type = t->type;
      cand.trainer_count = t->count;
      cand.trainer_vcpus = ts->vcpus;
      cand.trainer_accelerators = ts->accelerators;
      cand.trainer_usd_per_hour = quote(*ts, market) ? quote(*ts, market)->usd_per_hour : 0;
      if (d) {
        cand.data_type = d->type;
        cand.data_count = d->count;
        cand.data_vcpus = ds->vcpus;
        cand.data_usd_per_hour = quote(*ds, market) ? quote(*ds, market)->usd_per_hour : 0;
      }
      SpeedFactor tf = factor_of(t->type), df = factor_of(d ? d->type : t->type);
      Measured mc = m;
      if (trainer_given && c.step_time_ms) mc.trainer_step_ms = Range::point(*c.step_time_ms);
      if (!config.priced_only && !trainer_elsewhere) {  // emulated here: the CPUs the config pins, at this host's speed
        const ExecutionSettings& e = c.execution;
        const auto size_of = [&](const std::vector<int>& s) { return s.empty() ? logical_cpus : static_cast<int64_t>(s.size()); };
        cand.trainer_count = 1;
        cand.trainer_vcpus = size_of(e.cpus);
        cand.pooled = e.data.mode == DataMode::local;
        cand.data_count = cand.pooled ? 0 : 1;
        cand.data_vcpus = cand.pooled ? 0 : std::min(size_of(e.data.spawn_local_cpus), e.data.spawn_local_processes * e.data.spawn_local_workers);
        if (cand.pooled) cand.trainer_vcpus = std::min(cand.trainer_vcpus, std::max<int64_t>(1, e.data.workers));
        tf = df = SpeedFactor{"host", Range::point(1), "this host"};
      }
      project::ConfigurationCheck check;
      check.configuration = c.name;
      check.reference = ci == reference_index;
      check.predicted = project::predict(mc, cand, tf, df, settings);
      if (config.priced_only) check.actual_ms = c.step_time_ms, check.actual_source = "given";
      else if (const Result* r = find(c.name)) check.actual_ms = r->step->mean_ms, check.actual_source = trainer_elsewhere ? "given" : "measured";
      wp.checks.push_back(check);
    }
    // Measured here: the other configurations run on this same host, under the same contention
    // and overlap as the reference did; its measured / projected step carries them over.
    const auto ref_check = std::find_if(wp.checks.begin(), wp.checks.end(), [](const project::ConfigurationCheck& c) { return c.reference; });
    if (!config.priced_only && !trainer_elsewhere && ref_check != wp.checks.end() && ref_check->actual_ms) {
      const double k = *ref_check->actual_ms / ref_check->predicted.step_ms.value;
      wp.host_calibration = k;
      for (auto& c : wp.checks) {
        for (project::Range* r : {&c.predicted.step_ms, &c.predicted.usd_per_step, &c.predicted.usd_per_1m_samples})
          r->value *= k, r->lo *= k, r->hi *= k;
      }
    }
    for (const auto& [family, f] : factors) wp.speed_factors.push_back(f);
    out.workloads.push_back(std::move(wp));
  }

  if (out.workloads.empty()) {
    for (const auto& line : not_projected) std::cerr << "pperf project: " << line << "\n";
    return kExitRuntime;
  }
  // The configuration to measure next: the first workload's cheapest cluster, beside the baseline
  // (and, when that is the trainer alone, its cheapest cluster with data instances).
  {
    project::NextConfigInputs in;
    std::ifstream file(config.path);
    in.config = nlohmann::json::parse(file);
    in.name = config.name;
    in.table = std::filesystem::exists(table.path) ? std::filesystem::absolute(table.path).string() : table_name;
    in.region = table.region;
    for (const auto& params : config.path_params)
      for (const auto& pp : params) in.paths.emplace_back(pp.pointer, pp.path);
    in.config_dir = std::filesystem::absolute(config.path).parent_path().string();
    in.priced_only = config.priced_only;
    in.reference = reference_index;
    for (size_t ci = 0; ci < config.configurations.size(); ++ci)
      if (group_of(config.configurations[ci], "data")) {
        in.data_configuration = ci;
        break;
      }
    in.host_cpus = HostCapacity::here().logical_cpus;
    const project::WorkloadProjection& first = out.workloads.front();
    const project::Prediction* best = project::cheapest(first);
    const auto with_data = std::find_if(first.predictions.begin(), first.predictions.end(),
                                        [](const project::Prediction& pr) { return pr.candidate.data_count > 0; });
    write_file_atomically(next_path, project::next_config(in, best->candidate, with_data == first.predictions.end() ? nullptr : &with_data->candidate)
                                             .dump(2) + "\n");
  }
  if (p.has("out")) write_file_atomically(p.string("out"), project::to_json(out).dump(2) + "\n");
  if (p.has("html")) write_file_atomically(p.string("html"), project::html_page(out, top));
  // The terminal's width, as pperf run's report uses it (none when stdout is not a terminal).
  const size_t width = terminal_columns();
  std::cout << project::console_text(out, top, width);
  std::string written;
  for (const auto& line : not_projected) written += line + "\n";
  if (p.has("out")) written += "projection: " + p.string("out") + "\n";
  if (p.has("html")) written += "html: " + p.string("html") + "\n";
  std::cout << wrap(written, width);
  return kExitOk;
}

}  // namespace pperf::cli
