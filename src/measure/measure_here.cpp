// One item measured in this process (executor.h: measure_item_here): set up (device, CPUs, thread
// pools, data source, workload, a rank's group), measured, summarized, its figures added.
#include "src/measure/executor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <tuple>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <set>
#include <thread>

#include "src/core/result_events.h"
#include "src/core/results_json.h"
#include "src/core/atomic_file.h"
#include "src/core/crypto.h"
#include "src/env/cpu_usage.h"
#include "src/env/gpu_info.h"
#include "src/env/host_info.h"
#include "src/env/memory_cgroup.h"
#include "src/env/shaped_link.h"
#include "src/core/process.h"
#include "src/measure/cuda_graph_step.h"
#include "src/measure/data_parallel.h"
#include "src/measure/data_sources.h"
#include "src/measure/item_figures.h"
#include "src/measure/rank_item.h"
#include "src/measure/memory_bound.h"
#include "src/measure/peak_flops.h"
#include "src/measure/progress.h"
#include "src/measure/runner.h"
#include "src/measure/spot_drill.h"
#include "src/measure/torch_info.h"
#include "src/measure/trace.h"
#include "src/stats/intervals.h"
#include "src/stats/stats.h"
#include "src/core/mfu.h"
#include "workloads/common/local_loader.h"
#include "workloads/common/torch_compat.h"

namespace pperf {

namespace {
/// Batches bound for a GPU are pinned where they are made or received, off the training
/// thread, as DataLoader(pin_memory=True) does; a step that drives its own device gets none.
bool pins_batches(const WorkloadSpec& spec) { return spec.device != "cpu" && !spec.owns_device; }

/// The data source a configuration asks for: loader threads here, or data workers (started
/// here for spawn_local, or already running at `endpoints`). `group` keeps spawned workers alive.
/// A Python pipeline in "local" mode runs as one Python worker on the trainer's own CPUs, so
/// both sides of a comparison pay the same per-sample cost. `path` is the plan's: spawned workers
/// behind its emulated link sit in the namespace `link` holds.
std::unique_ptr<DataSource> open_data_source(const Config& config, const WorkloadSpec& spec,
                                             const WorkloadDescriptor& descriptor,
                                             const std::shared_ptr<InputPipeline>& pipeline, const ExecutionSettings& exec,
                                             const ExecutorOptions& options, const DataPath& path,
                                             std::unique_ptr<ShapedLink>& link, std::unique_ptr<LocalDataGroup>& group,
                                             ExecutionReport& report) {
  const DataSettings& data = exec.data;
  const bool python = data.worker == DataWorker::python;
  if (data.mode == DataMode::local && !python)
    return std::make_unique<LocalLoader>(pipeline, data.workers, data.prefetch_batches, 0, 1, pins_batches(spec));
  ServiceSourceOptions service;
  service.endpoints = data.endpoints;
  const char* env_token = std::getenv("PPERF_DATA_TOKEN");
  service.token = env_token ? env_token : "";
  service.prefetch_batches = data.prefetch_batches;
  // A worker that stops answering ends the stream soon after the budget would have, not 120 s later.
  service.batch_stall_deadline_s = std::min(120.0, std::max(10.0, config.measure.max_seconds));
  service.pin_memory = pins_batches(spec);
  if (descriptor.batch_layout) service.expected_layout = layout_on_wire(descriptor.batch_layout(spec), spec.wire);
  if (python) service.dataset = data.dataset, service.dataset_kwargs = data.dataset_kwargs.dump();
  if (!data.tls_ca.empty()) service.tls_ca_pem = read_text_file(data.tls_ca);
  const bool local_python = python && data.mode == DataMode::local;
  if (data.spawn_local_processes > 0 || local_python) {
    // Workers this run starts get a token of their own, so no other local user can stream
    // from them or stop them.
    service.token = random_token_hex(32);
    const int64_t processes = local_python ? 1 : data.spawn_local_processes;
    const int64_t workers = local_python ? data.workers : data.spawn_local_workers;
    const std::vector<int>& cpus = local_python ? exec.cpus : data.spawn_local_cpus;
    // The item's batch size and params (a sweep point may change them): the workers serve those.
    std::vector<std::string> command =
        python ? python_worker_command(options.process.pperf_binary, spec, data)
               : std::vector<std::string>{options.process.pperf_binary, "data-worker", "--config", config.path, "--workload", spec.name,
                                          "--batch-size", std::to_string(spec.batch_size), "--params", spec.params.dump(),
                                          "--wire", spec.wire};
    std::string listen_host = "127.0.0.1";
    if (const std::optional<EmulatedLink>& emulated = path.link) {
      // The data group's link, emulated: the workers behind a veth shaped to the real link's
      // rate times the trainer's slowdown here. A host that cannot make it is the plan's
      // obstacle, refused before anything runs, never run unthrottled.
      link = std::make_unique<ShapedLink>(emulated->rate_bit_per_s());
      const std::vector<std::string> prefix = link->exec_prefix();
      command.insert(command.begin(), prefix.begin(), prefix.end());
      command.push_back("--insecure");  // the namespace's own address; the run's token still guards it
      listen_host = link->inside_address();
      report.data_link = DataLinkReport{emulated->gbps, emulated->source, emulated->scale, link->rate_bit_per_s() / 1e9, link->how()};
    }
    group = std::make_unique<LocalDataGroup>(command, processes, workers, cpus, service.token, python ? 120 : 60, listen_host);
    service.endpoints = group->endpoints();
    report.data_workers = workers;
    if (local_python) report.data_cpus = exec.cpus;
  }
  report.data_endpoints = service.endpoints;
  report.data_wire = spec.wire;
  if (!service.expected_layout.empty()) report.data_wire_bytes_per_sample = bytes_per_sample(service.expected_layout);
  return connect_service(spec, service);
}

/// Fills the measure stage's figures from the samples: estimate, spread, throughput.
void summarize_into(Result& r, Measurement m) {
  r.measured = true;
  r.partial = m.source_failed();
  if (m.source_failed()) r.events.push_back(m.stop.text);
  if (m.step_ms.empty()) {
    r.status = m.interrupted() ? ResultStatus::not_run : ResultStatus::failed;
    r.reason = m.stop.text;
    return;
  }
  const Summary s = summarize(m.step_ms);
  // Converged: stopped because it had answered its question (the precision target, or in turns
  // the decision against the baseline), not on the budget.
  r.converged = m.stop.code == StopReason::target_rel_ci || m.stop.code == StopReason::decided;
  r.step = step_time_estimate(m.step_ms);
  r.spread = StepTimeSpread{s.mean, s.stdev, s.cv, s.p5, s.p95};
  r.samples_per_s = m.samples_per_s(r.samples_per_step);
  r.data_wait_fraction = m.data_wait_fraction();
  if (m.step_ms.size() < kMinCiSteps)
    r.events.push_back(fmt::format("{} measured steps: no confidence interval below {}", m.step_ms.size(), kMinCiSteps));
  if (const auto mk = warming_up_trend(m.step_ms))
    r.events.push_back(fmt::format("{}step times fall over the measured steps (Mann-Kendall z = {:.2f}, "
                                   "p = {:.2g}); raise warmup_steps",
                                   kWarmingUpEvent, mk->z, mk->p_value));
  if (m.interrupted()) r.events.push_back(fmt::format("interrupted after {} measured steps", m.step_ms.size()));
  r.measurement = std::move(m);
}

/// Everything an item needs to measure, built once: its device, pinned CPUs and thread pools,
/// data source (and spawned data group), workload, and a data-parallel rank's group. Not
/// movable: the rank's step agreement refers to the group held here.
struct PreparedItem {
  WorkloadSpec spec;
  std::vector<int> cpus;
  std::unique_ptr<Device> device;
  std::string smi_id = "all";  // nvidia-smi's name of the device ("all" on the CPU)
  std::string smi_why_all;     // on a GPU whose nvidia-smi id is unknown: why
  std::unique_ptr<ShapedLink> link;  // outlives the workers behind it
  std::unique_ptr<LocalDataGroup> group;
  std::unique_ptr<DataSource> data;
  std::unique_ptr<Workload> workload;
  std::shared_ptr<ProcessGroupHandle> process_group;
  std::unique_ptr<DataParallelWorkload> parallel;
  StepAgreement agreement;

  PreparedItem() = default;
  PreparedItem(const PreparedItem&) = delete;
  PreparedItem& operator=(const PreparedItem&) = delete;
  Workload& trained() { return parallel ? static_cast<Workload&>(*parallel) : *workload; }
};

/// Pins the trainer to its CPUs before anything starts threads (loader and libtorch threads
/// inherit the set), sets its thread pools, and records in `r` what took effect.
void pin_and_set_threads(PreparedItem& p, Result& r, const ExecutionSettings& exec, const ExecutorOptions& options) {
  if (!pin_process_to_cpus(p.cpus)) throw std::runtime_error("cannot pin the trainer to its CPUs");
  const AppliedThreads applied = apply_threads(exec.threads, exec.interop_threads);
  r.execution = ExecutionReport{exec.threads, applied.threads, exec.interop_threads, applied.interop_threads,
                                exec.data.mode, exec.data.workers};
  r.execution->emulated = !options.process.native;
  r.execution->cpus = p.cpus;
  r.execution->data_cpus = exec.data.spawn_local_cpus;
  r.execution->device = p.spec.device;
}

/// A data-parallel rank joins its item's group, which agrees on stopping. A step that forms its
/// own group (`own_group`, python_step) gets the launcher's variables with a port of its own;
/// pperf's group then only agrees on stopping and gathers the step times.
void join_rank_group(PreparedItem& p, const Config& config, const PlanItem& item, const RankContext& rank, bool own_group) {
  const DistributedSettings& d = *item.configuration->execution.distributed;
  p.process_group = join_group(rank, {own_group ? "gloo" : d.backend, d.timeout_s, rank_identity(config, item),
                                      own_group ? "cpu" : p.device->name()});
  p.agreement.rank0 = rank.rank == 0;
  p.agreement.agree = [group = p.process_group](int code) { return agree_on(*group, code); };
  if (own_group)
    p.spec.rank_env = {{"RANK", std::to_string(rank.rank)},
                       {"WORLD_SIZE", std::to_string(rank.world_size)},
                       {"LOCAL_RANK", std::to_string(rank.local_rank)},
                       {"MASTER_ADDR", rank.store_host},
                       {"MASTER_PORT", std::to_string(shared_free_port(*p.process_group, "step_port"))}};
}

/// Item set-up: refuses what cannot run here, then builds `p` and records in `r` what took
/// effect (execution settings, data facts).
void prepare_item(PreparedItem& p, Result& r, const Config& config, const PlanItem& item, const WorkloadRegistry& registry,
                  const ExecutorOptions& options) {
  for (const auto& obstacle : item.not_runnable_here)
    throw std::runtime_error("not runnable on this host: " + obstacle.pointer + ": " + obstacle.reason);
  const ExecutionSettings& exec = item.configuration->execution;
  const std::optional<RankContext>& rank = options.process.rank;
  if (exec.distributed && !rank)
    throw std::runtime_error("data-parallel ranks run in measuring processes of their own (drop --in-process)");
  // "cuda": one rank per priced GPU, each on its own GPU of this host (without ranks: the one
  // priced GPU, cuda:0). With no GPU at all, open_device says why.
  std::optional<int> ordinal;
  if (exec.device.kind == DeviceChoice::Kind::every_gpu)
    if (const int64_t gpus = torch_cuda_devices(); gpus > 0) ordinal = cuda_ordinal_of_rank(rank ? rank->local_rank : 0, gpus);
  p.cpus = rank ? cpus_of_rank(exec, *rank, ordinal) : exec.cpus;
  p.spec = *item.workload;
  WorkloadSpec& spec = p.spec;
  spec.device = exec.device.torch_device(ordinal.value_or(0));
  const WorkloadDescriptor* descriptor = registry.find(spec.name);
  if (!descriptor) throw std::runtime_error("workload '" + spec.name + "' is not compiled into this pperf");
  spec.wire = item.data_path.wire;  // ranks read through loader threads of their own: batches in memory
  // A step that drives its own device gets no CUDA context of pperf's: its batches stay on the
  // host and its own synchronize() ends each step; the configured GPU is only sampled.
  p.device = open_device(spec.owns_device ? "cpu" : spec.device);  // also the thread's current device
  if (spec.owns_device && spec.device != "cpu")
    r.events.push_back("the step drives its own device: pperf opened no CUDA context and samples " + spec.device +
                       "'s utilization with nvidia-smi");
  for (const auto& note : item.notes) r.events.push_back(note);
  pin_and_set_threads(p, r, exec, options);

  // The item's peak starts here (several items may share a process measured --in-process).
  reset_peak_rss();

  // One pipeline serves both the loader and the data facts: never a second one built for
  // data_info() alone (some load a whole data set).
  std::shared_ptr<InputPipeline> pipeline =
      exec.data.mode == DataMode::local && exec.data.worker == DataWorker::pperf ? descriptor->make_pipeline(spec) : nullptr;
  // Rank r of N reads batches r, r + N, r + 2N, ...: disjoint slices of the one sequence.
  p.data = rank ? std::make_unique<LocalLoader>(pipeline, exec.data.workers, exec.data.prefetch_batches, rank->rank,
                                                rank->world_size, pins_batches(spec))
                : open_data_source(config, spec, *descriptor, pipeline, exec, options, item.data_path, p.link, p.group,
                                   *r.execution);
  const bool own_group = descriptor->capabilities.steps_as_own_ranks;
  if (rank) join_rank_group(p, config, item, *rank, own_group);
  p.workload = descriptor->make_workload(spec);
  if (exec.cuda_graphs) {  // the config allows it only on a GPU, without ranks, for static_shapes workloads
    p.workload = capture_cuda_graph(std::move(p.workload), *p.device);
    r.events.push_back(cuda_graph_event());
  }
  if (rank && !own_group)
    p.parallel = std::make_unique<DataParallelWorkload>(*p.workload, p.process_group, exec.distributed->bucket_mib << 20);
  if (pipeline) r.data = pipeline->data_info();
  else if (auto info = p.data->data_info()) r.data = *info;
  if (r.data && r.data->source == "synthetic") r.events.push_back("synthetic data: random inputs, not a real dataset");

  if (spec.device != "cpu") {
    const SmiGpuId smi = map_to_nvidia_smi(static_cast<int>(torch::Device(spec.device).index()),
                                           std::getenv("CUDA_VISIBLE_DEVICES"), std::getenv("CUDA_DEVICE_ORDER"));
    p.smi_id = smi.id;
    p.smi_why_all = smi.why_all;
  }
}

/// The figures of a measured item beside its step times: device peak, bottleneck verdict, a
/// busy neighbour, and (Spot) the cost of a checkpoint, measured after the steps so the step
/// times are untouched.
void add_figures(Result& r, PreparedItem& p, const PlanItem& item, const ExecutorOptions& options, const CpuSample& cpu_before,
                 const CpuSample& cpu_after, const std::atomic<bool>& stop_requested) {
  const ExecutionSettings& exec = item.configuration->execution;
  const std::optional<RankContext>& rank = options.process.rank;
  if (r.status != ResultStatus::ok) return;
  if (p.device->name() != "cpu" && (!rank || rank->rank == 0)) {  // rank 0 reports
    try {
      r.execution->device_peak = gpu_peak(*p.device, p.smi_id);
    } catch (const std::exception& e) {
      r.events.push_back(std::string("MFU: this GPU's peak was not measured: ") + e.what());
    }
  }
  r.bottleneck = bottleneck_of(r, exec, p.cpus, cpu_before, cpu_after, p.group && !p.group->pids().empty());
  // A rank's siblings share the host by design: not a neighbour.
  const std::string busy =
      rank ? "" : busy_neighbour_warning(r.bottleneck->others_cpu_pct / 100, HostCapacity::here().logical_cpus);
  if (!busy.empty()) r.events.push_back(busy);
  // In a data-parallel group rank 0 writes the checkpoint, as DDP jobs do.
  const bool writes_checkpoints = !rank || rank->rank == 0;
  if (const auto& spot = item.configuration->spot; spot && writes_checkpoints && !stop_requested) {
    try {
      r.checkpoint = measure_checkpoint(*p.workload, checkpoint_path(spot->checkpoint_dir, item.configuration->name), 5);
    } catch (const std::exception& e) {
      r.events.push_back(std::string("spot: checkpoint cost not measured: ") + e.what());
    }
  }
}

/// What the item's processes held at their peak, read once its steps are done (before the
/// checkpoint's cost is measured: that is not training).
MemoryReport peak_memory(const PreparedItem& p) {
  MemoryReport m;
  m.processes.push_back({"trainer", getpid(), peak_rss_bytes()});
  const std::vector<int> data_workers = p.group ? p.group->pids() : std::vector<int>{};
  for (size_t i = 0; i < data_workers.size(); ++i)
    m.processes.push_back({fmt::format("data worker {}", i + 1), data_workers[i], peak_rss_bytes(data_workers[i])});
  // Any other process the trainer started (python_step's step worker), named by its command.
  for (int child : child_pids(getpid())) {
    if (std::find(data_workers.begin(), data_workers.end(), child) != data_workers.end()) continue;
    const std::string name = process_name(child);
    if (!name.empty()) m.processes.push_back({name + " (started by the trainer)", child, peak_rss_bytes(child)});
  }
  if (auto device = p.device->memory_peaks()) m.devices.push_back(*device);
  return m;
}

/// `--trace`: a few extra steps of a measured item under the profiler, after its measured ones
/// (whose samples it never touches), recorded in r.trace; a trace that cannot be taken is an event.
void trace_item(Result& r, PreparedItem& p, const ExecutorOptions& options, const std::atomic<bool>& stop_requested) {
  if (r.status != ResultStatus::ok || stop_requested || !r.measurement) return;
  if (options.process.rank) {
    r.events.push_back("trace: not taken: data-parallel ranks are not traced");
    return;
  }
  const Measurement& m = *r.measurement;
  const int64_t steps_before = m.warmup_steps + static_cast<int64_t>(m.step_ms.size()) + m.turns.untimed_steps.value_or(0);
  const std::string path = (std::filesystem::path(options.process.trace_dir) / trace_file_name(r.workload, r.configuration)).string();
  try {
    r.trace = trace_steps(p.trained(), *p.data, *p.device, steps_before, path);
  } catch (const c10::Error& e) {
    r.events.push_back(std::string("trace: not taken: ") + e.what_without_backtrace());
  } catch (const std::exception& e) {
    r.events.push_back(std::string("trace: not taken: ") + e.what());
  }
}

/// One item here: set up, measure, summarize, add the figures.
void measure_into(Result& r, const Config& config, const PlanItem& item, const WorkloadRegistry& registry,
                  const ExecutorOptions& options, const std::atomic<bool>& stop_requested) {
  PreparedItem p;
  prepare_item(p, r, config, item, registry, options);
  const std::optional<RankContext>& rank = options.process.rank;
  std::optional<TerminalProgress> progress;
  if (options.process.terminal_progress) progress.emplace(item.configuration->name, config.measure);
  std::optional<GpuSampler> gpu_sampler;
  if (p.spec.device != "cpu") gpu_sampler.emplace(200, p.smi_id);  // a step driving its own GPU included
  const std::vector<int> data_pids = p.group ? p.group->pids() : std::vector<int>{};
  CpuSample cpu_before = CpuSample::now(data_pids), cpu_after;
  std::vector<TimeWindow> own_rounds;  // taking turns: this configuration's rounds
  Measurement m;
  try {
    if (options.process.turns) {
      // Taking turns, a source that cannot say how far it got ahead while paused (data workers
      // not keeping up) has its whole prefetch queue consumed un-timed, and one step more.
      TurnTaking sampled = sampled_turns(*options.process.turns, data_pids, cpu_before, cpu_after, own_rounds);
      m = measure_in_turns(p.trained(), *p.data, config.measure, item.configuration->execution.data.prefetch_batches + 1,
                           sampled, stop_requested, steady_clock(), *p.device);
    } else {
      m = measure(p.trained(), *p.data, config.measure, stop_requested, steady_clock(),
                  progress ? ProgressCallback(std::ref(*progress)) : ProgressCallback(), *p.device, rank ? &p.agreement : nullptr);
      cpu_after = CpuSample::now(data_pids);
    }
  } catch (const c10::OutOfMemoryError& e) {
    // The device's own out-of-memory: the same kind of failure as the host bound's, with the
    // device's figures kept in the (failed) result.
    r.memory = peak_memory(p);
    const std::string what = e.what_without_backtrace();
    std::string figures;
    if (!r.memory->devices.empty())
      figures = fmt::format(" (peak allocated {:.2f} GiB, reserved {:.2f} GiB)",
                            r.memory->devices.front().peak_allocated_bytes / double(1LL << 30),
                            r.memory->devices.front().peak_reserved_bytes / double(1LL << 30));
    throw std::runtime_error(fmt::format("out of memory on {}{}: {}", p.device->name(), figures, what.substr(0, what.find('\n'))));
  }
  if (gpu_sampler) {
    // Taking turns on a shared GPU, the others' rounds are their kernels, not this one's.
    r.execution->gpu = gpu_sampler->finish(options.process.turns ? &own_rounds : nullptr);
    if (!gpu_sampler->why_none().empty()) r.events.push_back(gpu_sampler->why_none());
    // Pooled on a host of one GPU is that GPU: said only where others were pooled in.
    if (r.execution->gpu && !p.smi_why_all.empty())
      if (const nlohmann::json facts = nvidia_gpu_facts(); facts.is_object() && facts["gpus"].size() > 1)
        r.events.push_back(fmt::format("GPU utilization pools the host's {} GPUs: {}", facts["gpus"].size(), p.smi_why_all));
    auto& context = at::globalContext();
    r.execution->math = MathSettings{context.benchmarkCuDNN(), context.allowTF32CuBLAS(), context.allowTF32CuDNN()};
  }
  progress.reset();
  if (rank) merge_ranks(r, m, *p.process_group, p.parallel.get(), *rank, p.cpus, *item.configuration->execution.distributed);
  m.executor = "in_process";
  for (auto& e : p.data->events()) r.events.push_back(e);
  // Asked after running: what ran may have changed (e.g. a precision fallback mid-run).
  r.model = p.workload->model_info();
  r.events.insert(r.events.end(), r.model->events.begin(), r.model->events.end());
  summarize_into(r, std::move(m));
  r.memory = peak_memory(p);
  if (!options.process.trace_dir.empty()) trace_item(r, p, options, stop_requested);
  add_figures(r, p, item, options, cpu_before, cpu_after, stop_requested);
  // Spawned workers are stopped here, not by the destructor, so that one its own watchdog had
  // to end is recorded with the result.
  if (p.group) {
    p.data.reset();  // its streams end first: a stopping worker is not a dropped one
    for (auto& e : p.group->stop()) r.events.push_back(e);
  }
}

}  // namespace

Result measure_item_here(const Config& config, const PlanItem& item, const WorkloadRegistry& registry,
                         const ExecutorOptions& options, const std::atomic<bool>& stop_requested) {
  Result r = item.result_skeleton();
  try {
    measure_into(r, config, item, registry, options, stop_requested);
  } catch (const c10::Error& e) {  // torch's message, without the C++ backtrace torch appends
    return failed_result(std::move(r), e.what_without_backtrace());
  } catch (const std::exception& e) {
    // nvbench-style: one failing item is reported and the sweep goes on.
    return failed_result(std::move(r), e.what());
  }
  return r;
}

}  // namespace pperf
