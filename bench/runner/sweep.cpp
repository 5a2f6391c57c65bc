#include "bench/runner/sweep.h"

#include <fmt/format.h>

#include <cstdlib>
#include <thread>

#include "bench/dataservice/data_service.h"
#include "bench/env/torch_info.h"
#include "bench/runner/runner.h"
#include "workloads/common/local_loader.h"

namespace pperf {

namespace {
Result result_skeleton(const WorkloadSpec& spec, const Configuration& configuration) {
  Result r;
  r.workload = spec.name;
  r.preset = spec.preset;
  r.batch_size = spec.batch_size;
  r.configuration = configuration.name;
  r.baseline = configuration.baseline;
  return r;
}

bool selected(const SweepOptions& options, const std::string& configuration) {
  if (options.configurations.empty()) return true;
  for (const auto& c : options.configurations)
    if (c == configuration) return true;
  return false;
}

/// The data source a configuration asks for: loader threads here, or data workers (started
/// here for spawn_local, or already running at `endpoints`). `group` keeps spawned workers alive.
std::unique_ptr<DataSource> open_data_source(const Config& config, const WorkloadSpec& spec,
                                             const WorkloadDescriptor& descriptor, const DataSettings& data,
                                             const SweepOptions& options, std::unique_ptr<LocalDataGroup>& group,
                                             ExecutionReport& report) {
  if (data.mode == "local")
    return std::make_unique<LocalLoader>(descriptor.make_pipeline(spec), data.workers, data.prefetch_batches);
  std::vector<std::string> endpoints = data.endpoints;
  const char* token = std::getenv("PPERF_DATA_TOKEN");
  if (data.spawn_local_processes > 0) {
    group = std::make_unique<LocalDataGroup>(options.pperf_binary, config.path, spec.name, data.spawn_local_processes,
                                             data.spawn_local_workers, data.spawn_local_cpus, token ? token : "");
    endpoints = group->endpoints();
    report.data_workers = data.spawn_local_workers;
  }
  report.data_endpoints = endpoints;
  ServiceSourceOptions service;
  service.endpoints = endpoints;
  service.token = token ? token : "";
  service.prefetch_batches = data.prefetch_batches;
  return connect_service(spec, service);
}

void measure_one(Result& r, const Config& config, const WorkloadDescriptor& descriptor, const WorkloadSpec& spec,
                 const Configuration& configuration, const SweepOptions& options,
                 const std::atomic<bool>& stop_requested) {
  const ExecutionSettings& exec = configuration.execution;
  // Pin before anything starts threads, so loader and libtorch threads inherit the set.
  if (!pin_process_to_cpus(exec.cpus))
    throw std::runtime_error("cannot pin the trainer to its CPUs");
  const AppliedThreads applied = apply_threads(exec.threads, exec.interop_threads);
  r.execution = ExecutionReport{exec.threads, applied.threads, exec.interop_threads, applied.interop_threads,
                                exec.data.mode, exec.data.workers};
  r.execution->emulated = !options.native;
  r.execution->cpus = exec.cpus;
  r.execution->data_cpus = exec.data.spawn_local_cpus;

  std::unique_ptr<LocalDataGroup> group;
  std::unique_ptr<DataSource> data =
      open_data_source(config, spec, descriptor, exec.data, options, group, *r.execution);
  std::unique_ptr<Workload> workload = descriptor.make_workload(spec);
  r.model = workload->model_info();
  r.data = descriptor.make_pipeline(spec)->data_info();
  if (r.data->source == "synthetic") r.events.push_back("synthetic data: random images, not a real dataset");

  Measurement m = measure(*workload, *data, config.measure, stop_requested);
  for (auto& e : data->events()) r.events.push_back(e);
  r.measured = true;
  // Asked again after running: what ran may have changed (e.g. a precision fallback mid-run).
  r.model = workload->model_info();
  r.events.insert(r.events.end(), r.model->events.begin(), r.model->events.end());
  if (m.step_ms.empty()) {
    r.status = m.interrupted ? "not_run" : "failed";
    r.reason = m.stop_reason;
    return;
  }
  const Summary s = m.summary();
  r.step = StepTimeEstimate{s.median, s.ci95};
  if (m.interrupted) r.events.push_back(fmt::format("interrupted after {} measured steps", m.step_ms.size()));
  r.measurement = std::move(m);
}
}  // namespace

std::vector<Result> run_sweep(const Config& config, const WorkloadRegistry& registry,
                              const SweepOptions& options, const std::atomic<bool>& stop_requested,
                              const std::function<void(const std::vector<Result>&)>& on_result) {
  std::vector<Result> results;
  for (const auto& spec : config.workloads) {
    if (!options.workload.empty() && spec.name != options.workload) continue;
    const WorkloadDescriptor& descriptor = *registry.find(spec.name);
    for (const auto& configuration : config.configurations) {
      if (!selected(options, configuration.name)) continue;
      if (stop_requested) return results;
      Result r = result_skeleton(spec, configuration);
      try {
        measure_one(r, config, descriptor, spec, configuration, options, stop_requested);
      } catch (const std::exception& e) {
        // nvbench-style: one failing pair is reported and the sweep goes on.
        r.status = "failed";
        r.reason = e.what();
        r.step.reset();
        r.measurement.reset();
      }
      results.push_back(std::move(r));
      on_result(results);
    }
  }
  return results;
}

std::vector<Result> given_step_times(const Config& config) {
  std::vector<Result> results;
  const WorkloadSpec& spec = config.workloads.front();
  for (const auto& configuration : config.configurations) {
    Result r = result_skeleton(spec, configuration);
    r.step = StepTimeEstimate{*configuration.step_time_ms,
                              {*configuration.step_time_ms, *configuration.step_time_ms}};
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace pperf
