#include "bench/measure/executor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "bench/core/results_json.h"
#include "bench/core/atomic_file.h"
#include "bench/core/crypto.h"
#include "bench/env/process.h"
#include "bench/measure/data_sources.h"
#include "bench/measure/memory_probe.h"
#include "bench/measure/progress.h"
#include "bench/measure/runner.h"
#include "bench/measure/torch_info.h"
#include "bench/stats/intervals.h"
#include "bench/stats/stats.h"
#include "workloads/common/local_loader.h"

namespace pperf {

namespace {
/// The data source a configuration asks for: loader threads here, or data workers (started
/// here for spawn_local, or already running at `endpoints`). `group` keeps spawned workers alive.
/// A Python pipeline in "local" mode runs as one Python worker on the trainer's own CPUs, so
/// both sides of a comparison pay the same per-sample cost.
std::unique_ptr<DataSource> open_data_source(const Config& config, const WorkloadSpec& spec,
                                             const WorkloadDescriptor& descriptor,
                                             const std::shared_ptr<InputPipeline>& pipeline, const ExecutionSettings& exec,
                                             const ExecutorOptions& options, std::unique_ptr<LocalDataGroup>& group,
                                             ExecutionReport& report) {
  const DataSettings& data = exec.data;
  const bool python = data.worker == "python";
  if (data.mode == "local" && !python)
    return std::make_unique<LocalLoader>(pipeline, data.workers, data.prefetch_batches);
  ServiceSourceOptions service;
  service.endpoints = data.endpoints;
  const char* env_token = std::getenv("PPERF_DATA_TOKEN");
  service.token = env_token ? env_token : "";
  service.prefetch_batches = data.prefetch_batches;
  if (descriptor.batch_layout) service.expected_layout = descriptor.batch_layout(spec);
  if (python) service.dataset = data.dataset;
  if (!data.tls_ca.empty()) service.tls_ca_pem = read_text_file(data.tls_ca);
  const bool local_python = python && data.mode == "local";
  if (data.spawn_local_processes > 0 || local_python) {
    // Workers this run starts get a token of their own, so no other local user can stream
    // from them or stop them.
    service.token = random_token_hex(32);
    const int64_t processes = local_python ? 1 : data.spawn_local_processes;
    const int64_t workers = local_python ? data.workers : data.spawn_local_workers;
    const std::vector<int>& cpus = local_python ? exec.cpus : data.spawn_local_cpus;
    if (python)
      group = std::make_unique<LocalDataGroup>(python_worker_command(options.pperf_binary, spec, data), processes, workers, cpus,
                                               service.token, 120);
    else
      group = std::make_unique<LocalDataGroup>(options.pperf_binary, config.path, spec.name, processes, workers, cpus,
                                               service.token);
    service.endpoints = group->endpoints();
    report.data_workers = workers;
    if (local_python) report.data_cpus = exec.cpus;
  }
  report.data_endpoints = service.endpoints;
  return connect_service(spec, service);
}

/// Fills the measure stage's figures from the samples: estimate, spread, throughput.
void summarize_into(Result& r, Measurement m) {
  r.measured = true;
  r.partial = m.source_failed;
  if (m.source_failed) r.events.push_back(m.stop_reason);
  if (m.step_ms.empty()) {
    r.status = m.interrupted ? ResultStatus::not_run : ResultStatus::failed;
    r.reason = m.stop_reason;
    return;
  }
  const Summary s = summarize(m.step_ms);
  r.stop_reason = m.stop_reason_code();
  r.converged = *r.stop_reason == "target_rel_ci";
  r.step = step_time_estimate(m.step_ms, *r.converged);
  r.spread = StepTimeSpread{s.mean, s.stdev, s.cv, s.p5, s.p95};
  r.samples_per_s = m.samples_per_s(r.samples_per_step);
  r.data_wait_fraction = m.data_wait_fraction();
  if (m.step_ms.size() < kMinCiSteps)
    r.events.push_back(fmt::format("{} measured steps: no confidence interval below {}", m.step_ms.size(), kMinCiSteps));
  if (const MannKendall mk = mann_kendall(m.step_ms); m.step_ms.size() >= 10 && mk.z < 0 && mk.p_value < 0.01)
    r.events.push_back(fmt::format("still warming up: step times fall over the measured steps (Mann-Kendall z = {:.2f}, "
                                   "p = {:.2g}); raise warmup_steps",
                                   mk.z, mk.p_value));
  if (m.interrupted) r.events.push_back(fmt::format("interrupted after {} measured steps", m.step_ms.size()));
  r.measurement = std::move(m);
}

void measure_into(Result& r, const Config& config, const PlanItem& item, const WorkloadRegistry& registry,
                  const ExecutorOptions& options, const std::atomic<bool>& stop_requested) {
  for (const auto& obstacle : item.not_runnable_here)
    throw std::runtime_error("not runnable on this host: " + obstacle.pointer + ": " + obstacle.reason);
  const WorkloadSpec& spec = *item.workload;
  const WorkloadDescriptor* descriptor = registry.find(spec.name);
  if (!descriptor) throw std::runtime_error("workload '" + spec.name + "' is not compiled into this pperf");
  const ExecutionSettings& exec = item.configuration->execution;
  // Pin before anything starts threads, so loader and libtorch threads inherit the set.
  if (!pin_process_to_cpus(exec.cpus)) throw std::runtime_error("cannot pin the trainer to its CPUs");
  const AppliedThreads applied = apply_threads(exec.threads, exec.interop_threads);
  r.execution = ExecutionReport{exec.threads, applied.threads, exec.interop_threads, applied.interop_threads,
                                exec.data.mode, exec.data.workers};
  r.execution->emulated = !options.native;
  r.execution->cpus = exec.cpus;
  r.execution->data_cpus = exec.data.spawn_local_cpus;

  // A batch that cannot fit is refused before it climbs through the host's memory. (After the
  // thread settings: the probe's steps would fix the inter-op thread count.)
  if (const MemoryEstimate memory = estimate_step_memory(*descriptor, spec); !memory.fits())
    throw std::runtime_error("refused before measuring: one training step " + memory.describe() + "; lower batch_size");

  // One pipeline serves both the loader and the data facts: never a second one built for
  // data_info() alone (some load a whole data set).
  std::shared_ptr<InputPipeline> pipeline =
      exec.data.mode == "local" && exec.data.worker == "pperf" ? descriptor->make_pipeline(spec) : nullptr;
  std::unique_ptr<LocalDataGroup> group;
  std::unique_ptr<DataSource> data =
      open_data_source(config, spec, *descriptor, pipeline, exec, options, group, *r.execution);
  std::unique_ptr<Workload> workload = descriptor->make_workload(spec);
  if (pipeline) r.data = pipeline->data_info();
  else if (auto info = data->data_info()) r.data = *info;
  if (r.data && r.data->source == "synthetic") r.events.push_back("synthetic data: random inputs, not a real dataset");

  std::optional<TerminalProgress> progress;
  if (options.terminal_progress) progress.emplace(item.configuration->name, config.measure);
  Measurement m = measure(*workload, *data, config.measure, stop_requested, steady_clock(),
                          progress ? ProgressCallback(std::ref(*progress)) : ProgressCallback());
  progress.reset();
  m.executor = "in_process";
  for (auto& e : data->events()) r.events.push_back(e);
  // Asked after running: what ran may have changed (e.g. a precision fallback mid-run).
  r.model = workload->model_info();
  r.events.insert(r.events.end(), r.model->events.begin(), r.model->events.end());
  summarize_into(r, std::move(m));
}

Result failed_result(Result r, const std::string& reason) {
  r.status = ResultStatus::failed;
  r.reason = reason;
  r.step.reset();
  r.spread.reset();
  r.samples_per_s.reset();
  r.data_wait_fraction.reset();
  r.measurement.reset();
  return r;
}
}  // namespace

Result measure_item_here(const Config& config, const PlanItem& item, const WorkloadRegistry& registry,
                         const ExecutorOptions& options, const std::atomic<bool>& stop_requested) {
  Result r = item.result_skeleton();
  try {
    measure_into(r, config, item, registry, options, stop_requested);
  } catch (const std::exception& e) {
    // nvbench-style: one failing item is reported and the sweep goes on.
    return failed_result(std::move(r), e.what());
  }
  return r;
}

std::vector<std::string> measure_item_argv(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                                           const std::string& out_path) {
  std::vector<std::string> argv = {options.pperf_binary, "measure-item", "--config", config.path,
                                   "--config-sha256", config.sha256,
                                   "--workload-index", std::to_string(item.workload_index),
                                   "--configuration-index", std::to_string(item.configuration_index),
                                   "--out", out_path};
  if (options.native) argv.push_back("--native");
  if (options.terminal_progress) argv.push_back("--progress");
  return argv;
}

Result measure_item_in_child(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                             const std::atomic<bool>& stop_requested) {
  namespace fs = std::filesystem;
  static int sequence = 0;
  const std::string out = (fs::temp_directory_path() /
                           fmt::format("pperf-item-{}-{}.json", getpid(), sequence++)).string();
  Result skeleton = item.result_skeleton();
  int status = 0;
  try {
    SpawnOptions spawn;
    spawn.argv = measure_item_argv(config, item, options, out);
    // If pperf dies, the measuring process dies at once (and its data workers with it).
    spawn.death_signal = SIGKILL;
    ChildProcess child(spawn);
    bool forwarded = false;
    for (;;) {
      if (auto done = child.wait(0.1)) {
        status = *done;
        break;
      }
      if (stop_requested && !forwarded) {
        child.signal(SIGINT);  // finish the current step, write what was measured
        forwarded = true;
      }
    }
  } catch (const std::exception& e) {
    return failed_result(std::move(skeleton), std::string("cannot start the measuring process: ") + e.what());
  }
  std::error_code ec;
  if (!fs::exists(out, ec))
    return failed_result(std::move(skeleton), "the measuring process " + describe_wait_status(status) +
                                                  " without a result");
  try {
    RunReport report = read_results_file(out);
    fs::remove(out, ec);
    if (report.results.size() != 1) throw std::runtime_error("expected one result");
    return std::move(report.results.front());
  } catch (const std::exception& e) {
    fs::remove(out, ec);
    return failed_result(std::move(skeleton), std::string("unreadable result from the measuring process: ") + e.what());
  }
}

std::vector<Result> run_plan(const Config& config, const Plan& plan, const WorkloadRegistry& registry,
                             const ExecutorOptions& options, const std::atomic<bool>& stop_requested,
                             const std::function<void(const PlanItem&)>& on_start,
                             const std::function<void(const std::vector<Result>&)>& on_result) {
  std::vector<Result> results;
  for (const auto& item : plan.items) {
    if (stop_requested) break;
    on_start(item);
    results.push_back(options.in_process ? measure_item_here(config, item, registry, options, stop_requested)
                                         : measure_item_in_child(config, item, options, stop_requested));
    on_result(results);
  }
  return results;
}

}  // namespace pperf
