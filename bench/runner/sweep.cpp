#include "bench/runner/sweep.h"

#include <fmt/format.h>

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

bool selected(const SweepFilter& filter, const std::string& configuration) {
  if (filter.configurations.empty()) return true;
  for (const auto& c : filter.configurations)
    if (c == configuration) return true;
  return false;
}

void measure_one(Result& r, const WorkloadDescriptor& descriptor, const WorkloadSpec& spec,
                 const Configuration& configuration, const MeasureSettings& settings,
                 const std::atomic<bool>& stop_requested) {
  const ExecutionSettings& exec = configuration.execution;
  const AppliedThreads applied = apply_threads(exec.threads, exec.interop_threads);
  r.execution = ExecutionReport{exec.threads, applied.threads, exec.interop_threads,
                                applied.interop_threads, exec.data.mode, exec.data.workers};
  if (exec.data.mode == "service") {
    r.status = "not_run";
    r.reason = "data mode 'service' needs the gRPC data-offload service, which pperf does not have yet";
    return;
  }
  std::shared_ptr<InputPipeline> pipeline = descriptor.make_pipeline(spec);
  std::unique_ptr<Workload> workload = descriptor.make_workload(spec);
  r.model = workload->model_info();
  r.data = pipeline->data_info();
  if (r.data->source == "synthetic") r.events.push_back("synthetic data: random images, not a real dataset");

  LocalLoader loader(pipeline, exec.data.workers, exec.data.prefetch_batches);
  Measurement m = measure(*workload, loader, settings, stop_requested);
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
                              const SweepFilter& filter, const std::atomic<bool>& stop_requested,
                              const std::function<void(const std::vector<Result>&)>& on_result) {
  std::vector<Result> results;
  for (const auto& spec : config.workloads) {
    if (!filter.workload.empty() && spec.name != filter.workload) continue;
    const WorkloadDescriptor& descriptor = *registry.find(spec.name);
    for (const auto& configuration : config.configurations) {
      if (!selected(filter, configuration.name)) continue;
      if (stop_requested) return results;
      Result r = result_skeleton(spec, configuration);
      try {
        measure_one(r, descriptor, spec, configuration, config.measure, stop_requested);
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
