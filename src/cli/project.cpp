// `pperf project --config C [--table T] [--region R] [--out P.json]`: one measurement (or the
// config's given step times) projected across a price catalog. This file gathers the inputs (the
// config, the table, the results, the pipeline timed alone, the history's native runs) and writes
// the outputs; the model is src/project (assemble.h: from the gathered inputs to a workload's
// cheapest clusters, knee and checks).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "src/cli/cli.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "src/history/history.h"
#include "src/measure/pipeline_probe.h"
#include "src/project/assemble.h"
#include "src/project/data_parallel.h"
#include "pricing/scaling_curve.h"
#include "src/project/next_config.h"
#include "src/project/report.h"
#include "reports/formats.h"
#include "reports/text.h"

namespace pperf::cli {

namespace {
using project::Measured;
using project::Range;
using project::SpeedFactor;

const InstanceGroup* group_of(const Configuration& c, const std::string& role) {
  for (const auto& g : c.instances)
    if (g.role == role) return &g;
  return nullptr;
}

/// What the workload `name` declares it can do; nullptr for a workload this build does not know.
const WorkloadCapabilities* capabilities_of(const std::string& name) {
  const WorkloadDescriptor* d = builtin_workloads().find(name);
  return d ? &d->capabilities : nullptr;
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
        there = project::measured_from(r, capabilities_of(r.workload), logical, name);
      } catch (const InputError&) {
        continue;
      }
      const Range& a = here.pipeline_cpu_s_per_sample;
      const Range& b = there.pipeline_cpu_s_per_sample;
      if (b.value <= 0) continue;
      const std::string family = project::family_of(dnn->type);
      found[family] = SpeedFactor{family, {a.value / b.value, a.lo / b.hi, a.hi / b.lo},
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

/// Bytes of one batch on the data link: the workload's declared batch layout on the wire a data
/// worker would send (`wire`; its framing aside); nullopt when the workload declares none.
std::optional<double> batch_bytes(const WorkloadSpec& spec, const std::string& wire) {
  const WorkloadDescriptor* d = builtin_workloads().find(spec.name);
  if (!d || !d->batch_layout) return std::nullopt;
  try {
    return project::layout_bytes(layout_on_wire(d->batch_layout(completed(spec)), wire), spec.batch_size);
  } catch (const std::exception&) {
    return std::nullopt;
  }
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
/// What the command's flags ask, beside the session's request.
struct ProjectFlags {
  int64_t max_data = 4;
  size_t top = 10;
  std::optional<double> trainer_step_ms;
  project::ModelSettings settings;
  std::string history_db;  // "" without --history
  std::string next_path;
};

/// The config's shape as the projection reads it: the reference (the baseline), its trainer
/// group, and where the trainer's step and the pipeline's cost come from.
struct Reference {
  const Configuration* configuration = nullptr;
  size_t index = 0;  // into config.configurations
  const InstanceGroup* trainer = nullptr;
  bool trainer_elsewhere = false;  // a config this host cannot run: --trainer-step-ms is the trainer's step
  bool trainer_given = false;      // the trainers' steps are given (priced-only without a data group, or elsewhere)
  bool pipeline_here = false;      // its cost is in this host's cores
};

Reference reference_of(const RunSession& session, const Parsed& p, const ProjectFlags& flags) {
  const Config& config = session.config();
  Reference ref;
  ref.configuration = &config.baseline();
  ref.index = static_cast<size_t>(ref.configuration - config.configurations.data());
  ref.trainer = group_of(*ref.configuration, "dnn");
  if (!ref.trainer)
    throw InputError(config.path, fmt::format("{}/instances", ref.configuration->pointer), "the baseline has no trainer group (role \"dnn\")");
  // A config without a data group projects the data side from its pipeline: measured with the
  // trainer (a runnable config's local loader), or alone here (a priced-only config, whose given
  // step is then the trainer's own: nothing in it says the step waited for input).
  const bool has_data_group = std::any_of(config.configurations.begin(), config.configurations.end(),
                                          [](const Configuration& c) { return group_of(c, "data") != nullptr; });
  // A config this host cannot run (e.g. a CUDA trainer here) projects from --trainer-step-ms (the
  // trainer's own step, measured where it runs) and its pipeline timed alone here.
  const bool not_runnable_here = std::any_of(session.plan().items.begin(), session.plan().items.end(),
                                             [](const PlanItem& item) { return !item.not_runnable_here.empty(); });
  ref.trainer_elsewhere = !config.priced_only && !p.has("results") && flags.trainer_step_ms && not_runnable_here;
  ref.trainer_given = (config.priced_only && !has_data_group) || ref.trainer_elsewhere;
  ref.pipeline_here = !config.priced_only || ref.trainer_given;
  if (config.priced_only && group_of(*ref.configuration, "data"))
    throw InputError(config.path, ref.configuration->pointer + "/instances",
                     "the baseline of a priced-only config must be homogeneous (no data group): its step is taken as input-bound");
  return ref;
}

/// The table's name: --table, else the config's.
std::string table_name_of(const Parsed& p, const Config& config) { return p.has("table") ? p.string("table") : config.pricing.table; }

/// The catalog (--table/--region, else the config's), holding every instance the config names;
/// the reference's trainer is checked first.
PriceTable catalog_of(const Parsed& p, const Config& config, const Reference& ref) {
  const std::string table_name = table_name_of(p, config);
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
  if (!table.find(ref.trainer->type))
    throw InputError(table.path, "/regions/" + table.region,
                     fmt::format("no instance '{}' (the trainer of {}'s {}/instances){}", ref.trainer->type, config.path,
                                 ref.configuration->pointer, did_you_mean(ref.trainer->type, table.types())));
  for (const auto& c : config.configurations)
    for (size_t g = 0; g < c.instances.size(); ++g)
      if (!table.find(c.instances[g].type))
        throw InputError(table.path, "/regions/" + table.region,
                         fmt::format("no instance '{}' (named at {}'s {}/instances/{}){}", c.instances[g].type, config.path,
                                     c.pointer, g, did_you_mean(c.instances[g].type, table.types())));
  return table;
}

/// The measurement: given steps, a results file, or the reference measured now by the runner.
struct Measurement {
  std::vector<Result> results;
  std::string results_file = "the measurement";
  int64_t logical_cpus = HostCapacity::here().logical_cpus;  // of the host that measured
  bool stopped = false;                                      // Ctrl-C while measuring
};

Measurement measurement_of(const Parsed& p, const RunSession& session, const Reference& ref, const ProjectFlags& flags) {
  const Config& config = session.config();
  Measurement m;
  if (config.priced_only) {
    m.results = given_results(session.plan());
  } else if (ref.trainer_elsewhere) {
    for (const auto& item : session.plan().items) {
      Result r = item.result_skeleton();
      r.step = StepTimeEstimate{*flags.trainer_step_ms, std::nullopt, *flags.trainer_step_ms, std::nullopt};
      m.results.push_back(std::move(r));
    }
  } else if (p.has("results")) {
    m.results_file = p.string("results");
    RunReport run;
    try {
      run = read_results_file(m.results_file);
    } catch (const InputError& e) {
      throw InputError("--results", "", e.what());
    }
    if (run.config_name != config.name)
      throw InputError(m.results_file, "/config/name", fmt::format("results of config '{}', not of '{}'", run.config_name, config.name));
    if (run.host.contains("logical_cpus") && run.host["logical_cpus"].is_number_integer())
      m.logical_cpus = run.host["logical_cpus"].get<int64_t>();
    m.results = run.results;
  } else {
    session.preflight(false, true);
    const std::atomic<bool>& stop = install_stop_handlers(true);
    MeasureObserver silent;
    std::cerr << fmt::format("pperf project: measuring {} ({}) on this host\n", ref.configuration->name, config.path);
    m.results = session.measure(session.executor_options(), stop, silent);
    m.stopped = stop;
  }
  return m;
}

/// The ok result of `workload` x `configuration` with a step; nullptr when there is none.
const Result* ok_result(const std::vector<Result>& results, const std::string& workload, const std::string& configuration) {
  for (const auto& r : results)
    if (r.workload == workload && r.configuration == configuration && r.status == ResultStatus::ok && r.step) return &r;
  return nullptr;
}

/// How the result of `workload` x `configuration` ended ("failed: REASON"), "no result" without one.
std::string outcome_of(const std::vector<Result>& results, const std::string& workload, const std::string& configuration) {
  std::string why = "no result";
  for (const auto& r : results)
    if (r.workload == workload && r.configuration == configuration) why = to_string(r.status) + (r.reason.empty() ? "" : ": " + r.reason);
  return why;
}

/// What the model takes of the reference's result `ref_result` for workload entry
/// `workload_index`: its pipeline's CPU-seconds per sample and scaling, the trainer's step, the
/// batch's bytes.
Measured measured_for(size_t workload_index, const Result& ref_result, const Parsed& p, const Config& config,
                      const Reference& ref, const PriceTable& table, const Measurement& measurement, const ProjectFlags& flags) {
  const WorkloadSpec& spec = config.workloads.at(workload_index);
  Measured m;
  const Configuration& reference = *ref.configuration;
  if (ref.trainer_given) {
    m.workload = spec.name;
    m.samples_per_step = ref_result.samples_per_step;
    m.trainer_step_ms = Range::point(ref_result.step->mean_ms);
    m.trainer_source = fmt::format("given: {}'s step_time_ms, the trainer's own step (no configuration has a data group)", reference.name);
    std::cerr << fmt::format("pperf project: measuring {}'s pipeline alone on this host\n", spec.name);
    probe_pipeline_here(spec, measurement.logical_cpus, m);
  } else if (config.priced_only) {
    const int64_t vcpus = ref.trainer->count * table.find(ref.trainer->type)->vcpus;
    m.workload = spec.name;
    m.samples_per_step = ref_result.samples_per_step;
    m.pipeline_cpu_s_per_sample =
        Range::point(project::pipeline_cost_from_bound_step(ref_result.step->mean_ms, vcpus, ref_result.samples_per_step));
    m.pipeline_source = fmt::format("derived: the baseline's given {:.4g} ms/step taken as input-bound on its {} vCPUs", ref_result.step->mean_ms, vcpus);
    m.trainer_source = "not measured";
  } else {
    double ref_cores = 1;
    m = project::measured_from(ref_result, capabilities_of(spec.name), measurement.logical_cpus, measurement.results_file, &ref_cores);
    // Scaling: a configuration of the same results whose pipeline ran on more cores; its
    // CPU-seconds per sample against the reference's (data workers: their transport included).
    project::scaling_from_results(m, capabilities_of(spec.name), ref_cores, measurement.results, reference.name,
                                  measurement.logical_cpus, measurement.results_file);
    // Measured now and no configuration ran the pipeline wider: its scaling from the pipeline
    // alone on 1 and on every CPU of this host.
    // (pperf's own pipeline only: a Python worker's is not the one the probe would time.)
    if (!p.has("results") && m.scaling_cores == 1 && m.pipeline_absent.empty() && measurement.logical_cpus > 1 &&
        reference.execution.data.worker == DataWorker::pperf) {
      Measured alone;
      probe_pipeline_here(spec, measurement.logical_cpus, alone);
      if (alone.pipeline_absent.empty() && alone.scaling_cores > 1) {
        m.scaling_efficiency = alone.scaling_efficiency;
        m.scaling_cores = alone.scaling_cores;
        m.pipeline_source += "; its scaling from the pipeline alone: " + alone.pipeline_source.substr(alone.pipeline_source.find("scaling from") + 13);
      }
    }
  }
  // The wire of the config's first configuration with data workers (pperf's data workers' default
  // when none has): the plan's data path.
  std::string wire = config.default_wires.at(workload_index);
  for (const auto& c : config.configurations)
    if (c.execution.data.mode == DataMode::service) {
      wire = data_path_of(config, workload_index, c, false).wire;
      break;
    }
  if (const auto bytes = batch_bytes(spec, wire)) m.bytes_per_batch = *bytes * static_cast<double>(m.samples_per_step / std::max<int64_t>(1, spec.batch_size));
  if (flags.trainer_step_ms) {
    m.trainer_step_ms = Range::point(*flags.trainer_step_ms);
    m.trainer_source = "given (--trainer-step-ms)";
    m.trainer_cpu_s_per_step = 0;  // a GPU step's host CPU use is not known: not charged to the pool
  }
  return m;
}

/// The model's inputs for `spec`: what was measured, the speed factors' sources and the config's
/// configurations (on this host, the CPUs each pins; their measured or given steps).
project::WorkloadInputs inputs_for(const WorkloadSpec& spec, Measured measured, const Config& config, const Reference& ref,
                                   const PriceTable& table, const Measurement& measurement, const ProjectFlags& flags,
                                   project::FactorInputs& factors) {
  project::WorkloadInputs in;
  in.trainer = *ref.trainer;
  in.trainer_accelerators = table.find(ref.trainer->type)->accelerators;
  in.measured = std::move(measured);
  if (!flags.history_db.empty() && ref.pipeline_here && in.measured.pipeline_absent.empty())
    factors.measured = history_factors(flags.history_db, in.measured, spec);
  factors.reference_family_exact = config.priced_only && !ref.trainer_given;
  factors.reference_family = project::family_of(ref.trainer->type);
  factors.relative_to_host = ref.pipeline_here;
  in.each_trainer = ref.trainer_given;
  in.calibrate_to_host = !config.priced_only && !ref.trainer_elsewhere;
  in.max_data = flags.max_data;
  in.market = config.pricing.market;
  in.settings = flags.settings;
  for (size_t ci = 0; ci < config.configurations.size(); ++ci) {
    const Configuration& c = config.configurations[ci];
    project::ConfigurationInput ic;
    ic.name = c.name;
    ic.reference = ci == ref.index;
    if (const InstanceGroup* t = group_of(c, "dnn")) ic.trainer = *t;
    if (const InstanceGroup* d = group_of(c, "data")) ic.data = *d;
    ic.given_step_ms = c.step_time_ms;
    if (in.calibrate_to_host) {  // emulated here: the CPUs the config pins
      const ExecutionSettings& e = c.execution;
      const int64_t logical_cpus = measurement.logical_cpus;
      const auto size_of = [&](const std::vector<int>& set) { return set.empty() ? logical_cpus : static_cast<int64_t>(set.size()); };
      project::ConfigurationInput::HostCpus host;
      host.trainer_vcpus = size_of(e.cpus);
      host.pooled = e.data.mode == DataMode::local;
      host.data_vcpus = host.pooled ? 0 : std::min(size_of(e.data.spawn_local_cpus), e.data.spawn_local_processes * e.data.spawn_local_workers);
      if (host.pooled) host.trainer_vcpus = std::min(host.trainer_vcpus, std::max<int64_t>(1, e.data.workers));
      ic.host = host;
    }
    if (config.priced_only) ic.actual_ms = c.step_time_ms, ic.actual_source = "given";
    else if (const Result* r = ok_result(measurement.results, spec.name, c.name))
      ic.actual_ms = r->step->mean_ms, ic.actual_source = ref.trainer_elsewhere ? "given" : "measured";
    in.configurations.push_back(ic);
  }
  return in;
}

/// The configuration to measure next: the first workload's cheapest cluster, beside the baseline
/// (and, when that is the trainer alone, its cheapest cluster with data instances).
void write_next_config(const Parsed& p, const Config& config, const PriceTable& table, const Reference& ref,
                       const project::Projection& out) {
  project::NextConfigInputs in;
  std::ifstream file(config.path);
  in.config = nlohmann::json::parse(file);
  in.name = config.name;
  in.table = std::filesystem::exists(table.path) ? std::filesystem::absolute(table.path).string() : table_name_of(p, config);
  in.region = table.region;
  for (const auto& params : config.path_params)
    for (const auto& pp : params) in.paths.emplace_back(pp.pointer, pp.path);
  in.config_dir = std::filesystem::absolute(config.path).parent_path().string();
  in.priced_only = config.priced_only;
  in.reference = ref.index;
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
  write_file_atomically(out.next_config_path,
                        project::next_config(in, best->candidate, with_data == first.predictions.end() ? nullptr : &with_data->candidate)
                                .dump(2) + "\n");
}

/// A config with a scaling curve: the curve of each workload (from the measured points:
/// `--results` holds them all, a measurement here the first alone) projected to its instance
/// counts of every type with the trainer's accelerator, with the all-reduce over each type's link.
std::vector<project::DataParallelProjection> data_parallel_of(const Config& config, const PriceTable& table,
                                                              const std::vector<Result>& results, const ProjectFlags& flags) {
  std::vector<project::DataParallelProjection> out;
  const auto record = scaling_record(config.scaling, results);
  if (!record) return out;
  for (const auto& curve : record->curves) {
    project::DataParallelInputs in = project::data_parallel_inputs(curve);
    if (in.samples_per_step_one <= 0) continue;  // no point measured
    if (flags.trainer_step_ms) {
      in.step_one_ms = Range::point(*flags.trainer_step_ms);
      in.step_source = "--trainer-step-ms";
    }
    const auto types = project::catalog_candidates(table, curve.instance_type, 1, 0, config.pricing.market);
    out.push_back(project::project_data_parallel(curve, in, types, config.scaling->instances, flags.settings.model_error_pct));
  }
  return out;
}

/// The flags beyond the session's, read and checked (InputError naming the flag); next_path
/// once the config is read.
ProjectFlags flags_of(const Parsed& p) {
  ProjectFlags flags;
  flags.max_data = count_flag(p, "max-data");
  flags.top = static_cast<size_t>(count_flag(p, "top"));
  if (p.has("trainer-step-ms")) flags.trainer_step_ms = number_flag(p, "trainer-step-ms");
  if (p.has("link-gbps")) flags.settings.link_gbit_per_s = number_flag(p, "link-gbps");
  if (p.has("no-link")) {
    if (p.has("link-gbps")) throw InputError("--no-link", "", "give --no-link or --link-gbps, not both");
    flags.settings.table_links = false;
  }
  if (p.has("history")) flags.history_db = p.string("history");
  return flags;
}
}  // namespace

int command_project(const std::vector<std::string>& args) {
  auto options = config_options("project");
  options.add_options()("table", po::value<std::string>(), "price table (name or file; default: the config's pricing.table)")(
      "region", po::value<std::string>(), "region of the table (default: the config's, else the table's only one)");
  add_file_flags(options, projection_writers(), "");
  options.add_options()(
      "next", po::value<std::string>(), "where to write the configuration to measure next (default: beside --out, else results/)")(
      "results", po::value<std::string>(), "project from this results file of the config (pperf run) instead of measuring")(
      "trainer-step-ms", po::value<std::string>(), "the trainer's step with its input ready, ms (e.g. from a GPU run)")(
      "max-data", po::value<std::string>()->default_value("4"), "data instances per trainer group to consider: 1..N")(
      "top", po::value<std::string>()->default_value("10"), "rows of the table printed")(
      "link-gbps", po::value<std::string>(), "the data link's bandwidth for every candidate, Gbit/s (default: each instance's from the price table, link_gbps)")(
      "no-link", "leave the link term out (the table's link figures and --link-gbps unused)");
  options.add_options()("history", po::value<std::string>(),
                        "read per-core speed factors of instance families from the native runs in this history (file or postgresql:// URI)");
  Parsed p = parse("project", options, args);
  if (p.help) return std::cout << options, kExitOk;

  ProjectFlags flags = flags_of(p);
  SessionRequest request = session_request(p);
  request.baseline_only = true;  // the reference (the baseline) alone is measured
  const RunSession session(request);
  const Config& config = session.config();
  flags.next_path = p.has("next") ? p.string("next") : default_next_path(p, config);
  const Reference ref = reference_of(session, p, flags);
  const PriceTable table = catalog_of(p, config, ref);
  const auto files = file_outputs(p, projection_writers());
  check_writable(flags.next_path, p.has("next") ? "--next" : "--out");
  if (!flags.history_db.empty()) History(flags.history_db, History::Mode::read);  // a bad database fails before measuring

  const Measurement measurement = measurement_of(p, session, ref, flags);
  if (measurement.stopped) return kExitRuntime;
  project::Projection out;
  out.config_path = config.path;
  out.config_name = config.name;
  out.table = table.name;
  out.table_path = table.path;
  out.region = table.region;
  out.market = to_string(config.pricing.market);
  out.settings = flags.settings;
  out.reference_host = ref.trainer_elsewhere ? "this host (the pipeline alone); the trainer's step given (--trainer-step-ms)"
                       : ref.trainer_given   ? "this host (the pipeline alone); the trainers' steps given"
                       : config.priced_only  ? "given step times (nothing measured)"
                                             : "this host";
  out.next_config_path = flags.next_path;
  std::vector<std::string> not_projected;  // one line per workload whose measurement failed
  for (size_t w = 0; w < config.workloads.size(); ++w) {
    const WorkloadSpec& spec = config.workloads[w];
    const Result* ref_result = ok_result(measurement.results, spec.name, ref.configuration->name);
    if (!ref_result) {  // the measurement failed: this workload is not projected, and the output says why
      const std::string why = outcome_of(measurement.results, spec.name, ref.configuration->name);
      if (config.priced_only || p.has("results"))
        throw InputError(measurement.results_file, "",
                         fmt::format("no ok result of {} x {} to project from ({})", spec.name, ref.configuration->name, why));
      not_projected.push_back(fmt::format("workload {}: not projected: its measurement of {} here did not succeed ({})", spec.name,
                                          ref.configuration->name, why));
      continue;
    }
    project::FactorInputs factors;
    const Measured m = measured_for(w, *ref_result, p, config, ref, table, measurement, flags);
    const project::WorkloadInputs in = inputs_for(spec, m, config, ref, table, measurement, flags, factors);
    out.workloads.push_back(project::project_workload(in, table, factors));
  }
  out.data_parallel = data_parallel_of(config, table, measurement.results, flags);
  if (out.workloads.empty()) {
    for (const auto& line : not_projected) std::cerr << "pperf project: " << line << "\n";
    return kExitRuntime;
  }
  write_next_config(p, config, table, ref, out);
  // The terminal's width, as pperf run's report uses it (none when stdout is not a terminal).
  const ProjectionPage page{&out, flags.top, ConsoleOptions{terminal_columns(), false}};
  write_file_outputs(page, files);
  std::cout << find_writer(projection_writers(), "console")->write(page);
  std::string written;
  for (const auto& line : not_projected) written += line + "\n";
  for (const auto& f : files) written += (f.writer->name == "json" ? "projection" : f.writer->name) + ": " + f.path + "\n";
  std::cout << wrap(written, page.console.width);
  return kExitOk;
}

}  // namespace pperf::cli
