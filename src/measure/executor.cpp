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
#include "src/measure/interleave.h"
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
/// both sides of a comparison pay the same per-sample cost.
std::unique_ptr<DataSource> open_data_source(const Config& config, const WorkloadSpec& spec,
                                             const WorkloadDescriptor& descriptor,
                                             const std::shared_ptr<InputPipeline>& pipeline, const ExecutionSettings& exec,
                                             const ExecutorOptions& options, std::unique_ptr<ShapedLink>& link,
                                             std::unique_ptr<LocalDataGroup>& group, ExecutionReport& report,
                                             const std::string& pointer) {
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
    if (data.link_gbps && !options.process.native && !local_python) {
      // The data group's link, emulated: the workers behind a veth shaped to the real link's
      // rate times the trainer's slowdown here. Refused, never run unthrottled, when it cannot be made.
      if (const std::string why = shaped_link_obstacle(); !why.empty())
        throw std::runtime_error("not runnable on this host: " + pointer + "/execution/data/link_gbps: cannot emulate the " +
                                 fmt::format("{:g}", *data.link_gbps) + " Gbit/s link: " + why);
      link = std::make_unique<ShapedLink>(*data.link_gbps * data.link_scale * 1e9);
      const std::vector<std::string> prefix = link->exec_prefix();
      command.insert(command.begin(), prefix.begin(), prefix.end());
      command.push_back("--insecure");  // the namespace's own address; the run's token still guards it
      listen_host = link->inside_address();
      report.data_link = DataLinkReport{*data.link_gbps, data.link_from_table ? "price table" : "config", data.link_scale,
                                        link->rate_bit_per_s() / 1e9, link->how()};
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

/// CPU time and load while an item's steps run (warmup included), for the bottleneck verdict.
struct CpuSample {
  double trainer_s = 0, loader_s = 0, data_processes_s = 0, host_busy_s = 0, load_average = 0, wall_ms = 0;
  static CpuSample now(const std::vector<int>& data_pids) {
    CpuSample s;
    std::tie(s.trainer_s, s.loader_s) = own_threads_cpu_s(kLoaderThreadName);
    s.data_processes_s = processes_cpu_s(data_pids);
    s.host_busy_s = host_busy_cpu_s();
    s.load_average = load_average_1m();
    s.wall_ms = steady_clock().now_ms();
    return s;
  }
  /// Adds what changed from `start` to `end` (the load average is taken from `end`).
  void add_span(const CpuSample& start, const CpuSample& end) {
    trainer_s += end.trainer_s - start.trainer_s;
    loader_s += end.loader_s - start.loader_s;
    data_processes_s += end.data_processes_s - start.data_processes_s;
    host_busy_s += end.host_busy_s - start.host_busy_s;
    wall_ms += end.wall_ms - start.wall_ms;
    load_average = end.load_average;
  }
};

/// Taking turns, the CPU figures span this configuration's own rounds only: the others' turns
/// are neither its wall time nor a neighbour. `turns` is wrapped so each round is sampled; the
/// spans add up in `own` (zeros but for the load average at the first round).
/// The rounds' spans of the steady clock go to `own_rounds`, to cut the GPU's samples the same way.
TurnTaking sampled_turns(TurnTaking& turns, const std::vector<int>& data_pids, CpuSample& own_before, CpuSample& own,
                         std::vector<TimeWindow>& own_rounds) {
  auto round_start = std::make_shared<CpuSample>();
  TurnTaking sampled;
  sampled.ready = turns.ready;
  sampled.next = [&turns, &data_pids, &own_before, round_start, first = true](StopCause& end) mutable {
    std::optional<int64_t> steps = turns.next(end);
    *round_start = CpuSample::now(data_pids);
    if (first) own_before = CpuSample{0, 0, 0, 0, round_start->load_average, 0}, first = false;
    return steps;
  };
  sampled.done = [&turns, &data_pids, &own, &own_rounds, round_start](const std::vector<double>& round_ms) {
    const CpuSample end = CpuSample::now(data_pids);
    own.add_span(*round_start, end);
    own_rounds.push_back({round_start->wall_ms, end.wall_ms});  // CpuSample's wall_ms: steady_clock()'s
    turns.done(round_ms);
  };
  return sampled;
}

/// The verdict from two samples around the steps. Busy fractions are of the CPUs each side can
/// use: the trainer's CPU set; the data side's preprocessing threads or processes, at most as
/// many as their CPU set has (workers elsewhere, at `endpoints`, are not seen).
Bottleneck bottleneck_of(const Result& r, const ExecutionSettings& exec, const std::vector<int>& cpus,
                         const CpuSample& before, const CpuSample& after, bool data_processes) {
  const int64_t logical = HostCapacity::here().logical_cpus;
  const double wall_s = std::max(1e-9, (after.wall_ms - before.wall_ms) / 1000);
  const auto set_size = [&](const std::vector<int>& set) { return set.empty() ? logical : static_cast<int64_t>(set.size()); };
  BottleneckEvidence e;
  e.data_wait_fraction = r.data_wait_fraction.value_or(0);
  e.trainer_cpu_busy = (after.trainer_s - before.trainer_s) / (wall_s * static_cast<double>(set_size(cpus)));
  const DataSettings& d = exec.data;
  const double trainer_capacity = wall_s * static_cast<double>(set_size(cpus));
  if (data_processes) {
    const bool spawned = d.spawn_local_processes > 0;
    const int64_t workers = spawned ? d.spawn_local_processes * d.spawn_local_workers : d.workers;
    const int64_t capacity = std::min(workers, set_size(spawned ? d.spawn_local_cpus : cpus));
    const double data_s = after.data_processes_s - before.data_processes_s;
    e.data_cpu_busy = data_s / (wall_s * static_cast<double>(capacity));
    // The share of the workers' time spent on the trainer's CPUs: all of it for a local Python
    // worker (pinned to them); for spawned workers, the overlap of the two CPU sets.
    double on_trainer = 1;
    if (spawned) {
      // (Config CPU lists are in the user's order, not sorted: count membership.)
      const std::vector<int> data_set = d.spawn_local_cpus.empty() ? allowed_cpus() : d.spawn_local_cpus;
      const std::vector<int> trainer_set = cpus.empty() ? allowed_cpus() : cpus;
      const auto shared = std::count_if(data_set.begin(), data_set.end(), [&](int cpu) {
        return std::find(trainer_set.begin(), trainer_set.end(), cpu) != trainer_set.end();
      });
      on_trainer = data_set.empty() ? 0 : static_cast<double>(shared) / static_cast<double>(data_set.size());
    }
    e.pipeline_on_trainer_cpus = data_s * on_trainer / trainer_capacity;
  } else if (d.mode == DataMode::local) {
    const int64_t capacity = std::min(d.workers, set_size(cpus));
    e.data_cpu_busy = (after.loader_s - before.loader_s) / (wall_s * static_cast<double>(capacity));
    // Loader threads live in the trainer's process, pinned to its CPUs.
    e.pipeline_on_trainer_cpus = (after.loader_s - before.loader_s) / trainer_capacity;
  }
  if (r.distributed) e.comm_fraction = r.distributed->comm_fraction;
  if (r.execution && r.execution->gpu) e.gpu_busy = r.execution->gpu->mean_pct / 100;
  const double ours = (after.trainer_s - before.trainer_s) + (after.loader_s - before.loader_s) +
                      (after.data_processes_s - before.data_processes_s);
  const double others = std::max(0.0, after.host_busy_s - before.host_busy_s - ours);
  e.others_cpu_busy = others / (wall_s * static_cast<double>(logical));
  e.load_average = after.load_average;
  e.logical_cpus = r.distributed ? 0 : logical;  // a rank's siblings share the host by design
  Bottleneck b = bottleneck_verdict(e);
  b.load_average_before = before.load_average;
  b.load_average_during = after.load_average;
  b.others_cpu_pct = 100 * e.others_cpu_busy;
  return b;
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

// --- data-parallel ranks -----------------------------------------------------------------------

/// A spawn_local rank's CPUs: its own block of cpus_per_rank (the emulation of one instance).
/// `gpu_ordinal`: the CUDA device a rank of "device": "cuda" trains on (cuda:0 under Slurm's
/// --gpus-per-task=1, whatever its local rank); nullopt otherwise.
std::vector<int> cpus_of_rank(const ExecutionSettings& exec, const RankContext& rank, std::optional<int> gpu_ordinal) {
  const DistributedSettings& d = *exec.distributed;
  if (rank.launcher == Launcher::spawn_local && d.spawn_local && d.cpus_per_rank > 0)
    return rank_cpus(rank.rank, d.cpus_per_rank, HostCapacity::here().logical_cpus);
  // One rank per GPU: unless told otherwise, a rank runs on the CPUs of its GPU's NUMA node.
  if (gpu_ordinal && exec.cpus.empty())
    if (const auto node = gpu_numa_cpus(*gpu_ordinal, std::getenv("CUDA_VISIBLE_DEVICES"), std::getenv("CUDA_DEVICE_ORDER"))) {
      const std::vector<int> allowed = allowed_cpus();
      std::vector<int> usable;
      std::set_intersection(node->begin(), node->end(), allowed.begin(), allowed.end(), std::back_inserter(usable));
      if (!usable.empty()) return usable;
    }
  return exec.cpus;
}

/// A GPU's GEMM peaks, MFU's denominators for results on it: fp32 (TF32 off), tf32 and bf16,
/// measured once per GPU model and libtorch (after the steps, so they are untouched) and cached
/// beside the CPUs' peak; with the run's TF32 settings and the datasheet's peaks of that model.
DevicePeak gpu_peak(const Device& device, const std::string& smi_id) {
  const std::string model = nvidia_gpu_name(smi_id);
  const bool matmul_tf32 = at::globalContext().allowTF32CuBLAS(), cudnn_tf32 = at::globalContext().allowTF32CuDNN();
  // By model, not host: every A100 of a fleet shares one measurement; unknown models stay per host.
  const std::string fingerprint = fmt::format("{} libtorch {} fp32 tf32 bf16",
                                              model.empty() ? hostname() + " " + device.name() : model,
                                              torch_compat::torch_version());
  const nlohmann::json peak = cached_peak_gflops(fingerprint, default_peak_cache_path(), device.name());
  const nlohmann::json& bf16 = peak.at("bf16");
  DevicePeak p{peak.at("fp32").get<double>(), bf16.is_number() ? std::optional(bf16.get<double>()) : std::nullopt,
               peak.value("gemm", "")};
  p.tf32_gflops = peak.at("tf32").get<double>();
  p.model = model;
  p.matmul_tf32 = matmul_tf32;
  p.cudnn_tf32 = cudnn_tf32;
  if (const auto sheet = gpu_datasheet(model)) {
    p.datasheet_fp32_gflops = sheet->fp32;
    p.datasheet_tf32_gflops = sheet->tf32;
    p.datasheet_bf16_gflops = sheet->bf16;
  }
  return p;
}

/// What every rank of one item's group must share: the config's bytes and the item.
std::string rank_identity(const Config& config, const PlanItem& item) {
  return fmt::format("{} workload {} configuration {}", config.sha256.substr(0, 16), item.workload_index,
                     item.configuration_index);
}

/// Rank 0 gathers every rank's samples (once, at the end): a step takes as long as its slowest
/// rank; under pperf's data-parallel (`parallel` non-null) the ranks' parameters must be
/// identical. Other ranks only send theirs.
void merge_ranks(Result& r, Measurement& m, ProcessGroupHandle& group, const DataParallelWorkload* parallel,
                 const RankContext& rank, const std::vector<int>& cpus, const DistributedSettings& settings) {
  RankSamples mine;
  mine.rank = rank.rank;
  mine.host = hostname();
  mine.cpus = cpus;
  mine.step_ms = m.step_ms;
  mine.data_wait_ms = m.data_wait_ms;
  // Without pperf's data-parallel (a step with its own group) there is nothing of pperf's to
  // time or compare: the step's communication is inside its step time.
  static const std::vector<CommStep> no_comm;
  const auto& comm = parallel ? parallel->comm_steps() : no_comm;
  for (size_t i = comm.size() - std::min(comm.size(), m.step_ms.size()); i < comm.size(); ++i)
    mine.allreduce_ms.push_back(comm[i].allreduce_ms);
  mine.bytes_per_step = comm.empty() ? 0 : comm.back().bytes;
  if (parallel) mine.params_sha256 = parameters_sha256(parallel->parameters());
  const std::vector<RankSamples> all = gather_on_rank0(group, mine);
  if (rank.rank != 0) return;
  DistributedReport d;
  d.world_size = rank.world_size;
  d.backend = parallel ? settings.backend : kStepOwnBackend;
  if (parallel) d.engine = engine_name(group);
  d.launcher = rank.launcher;
  d.bytes_per_step = mine.bytes_per_step;
  size_t steps = m.step_ms.size();
  double comm_sum = 0;
  for (const auto& s : all) {
    if (s.params_sha256 != mine.params_sha256)
      throw std::runtime_error(fmt::format("ranks diverged: rank {}'s parameters differ from rank 0's after {} steps",
                                           s.rank, comm.size()));
    steps = std::min(steps, s.step_ms.size());
    Measurement own;
    own.step_ms = s.step_ms;
    own.data_wait_ms = s.data_wait_ms;
    d.ranks.push_back({s.rank, s.host, s.cpus, s.step_ms.empty() ? 0 : median(s.step_ms), own.data_wait_fraction()});
    double step_sum = 0, allreduce_sum = 0;
    for (double t : s.step_ms) step_sum += t;
    for (double t : s.allreduce_ms) allreduce_sum += t;
    comm_sum += step_sum > 0 ? allreduce_sum / step_sum : 0;
  }
  d.comm_fraction = comm_sum / static_cast<double>(all.size());
  if (!mine.allreduce_ms.empty()) {
    d.allreduce_median_ms = median(mine.allreduce_ms);
    d.allreduce_p95_ms = percentile(mine.allreduce_ms, 95);
  }
  // A step ends when its slowest rank is done; its wait is that rank's.
  m.step_ms.resize(steps);
  m.data_wait_ms.resize(steps);
  for (size_t i = 0; i < steps; ++i)
    for (const auto& s : all)
      if (s.step_ms[i] > m.step_ms[i]) {
        m.step_ms[i] = s.step_ms[i];
        m.data_wait_ms[i] = s.data_wait_ms[i];
      }
  r.events.push_back(describe(d));
  std::set<int> distinct;
  size_t pinned = 0;
  for (const auto& s : all) {
    distinct.insert(s.cpus.begin(), s.cpus.end());
    pinned += s.cpus.size();
  }
  if (distinct.size() < pinned)
    r.events.push_back(fmt::format("ranks share CPUs: {} ranks pinned to {} distinct CPUs (this host has fewer than "
                                   "they ask for), so they slow each other down",
                                   all.size(), distinct.size()));
  r.distributed = std::move(d);
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
  // Ranks read through loader threads of their own: batches in memory, float32.
  spec.wire = rank ? "float32" : exec.data.wire_for(descriptor->capabilities);
  // A step that drives its own device gets no CUDA context of pperf's: its batches stay on the
  // host and its own synchronize() ends each step; the configured GPU is only sampled.
  p.device = open_device(spec.owns_device ? "cpu" : spec.device);  // also the thread's current device
  if (spec.owns_device && spec.device != "cpu")
    r.events.push_back("the step drives its own device: pperf opened no CUDA context and samples " + spec.device +
                       "'s utilization with nvidia-smi");
  for (const auto& note : item.notes) r.events.push_back(note);
  // Pin before anything starts threads, so loader and libtorch threads inherit the set.
  if (!pin_process_to_cpus(p.cpus)) throw std::runtime_error("cannot pin the trainer to its CPUs");
  const AppliedThreads applied = apply_threads(exec.threads, exec.interop_threads);
  r.execution = ExecutionReport{exec.threads, applied.threads, exec.interop_threads, applied.interop_threads,
                                exec.data.mode, exec.data.workers};
  r.execution->emulated = !options.process.native;
  r.execution->cpus = p.cpus;
  r.execution->data_cpus = exec.data.spawn_local_cpus;
  r.execution->device = spec.device;

  // The item's peak starts here (several items may share a process measured --in-process).
  reset_peak_rss();

  // One pipeline serves both the loader and the data facts: never a second one built for
  // data_info() alone (some load a whole data set).
  std::shared_ptr<InputPipeline> pipeline =
      exec.data.mode == DataMode::local && exec.data.worker == DataWorker::pperf ? descriptor->make_pipeline(spec) : nullptr;
  // Rank r of N reads batches r, r + N, r + 2N, ...: disjoint slices of the one sequence.
  p.data = rank ? std::make_unique<LocalLoader>(pipeline, exec.data.workers, exec.data.prefetch_batches, rank->rank,
                                                rank->world_size, pins_batches(spec))
                : open_data_source(config, spec, *descriptor, pipeline, exec, options, p.link, p.group, *r.execution,
                                   item.configuration->pointer);
  // A step that forms its own group (python_step) gets the launcher's variables with a port of
  // its own; pperf's group then only agrees on stopping and gathers the step times.
  const bool own_group = descriptor->capabilities.steps_as_own_ranks;
  if (rank) {
    const DistributedSettings& d = *exec.distributed;
    p.process_group = join_group(*rank, {own_group ? "gloo" : d.backend, d.timeout_s, rank_identity(config, item),
                                         own_group ? "cpu" : p.device->name()});
    p.agreement.rank0 = rank->rank == 0;
    p.agreement.agree = [group = p.process_group](int code) { return agree_on(*group, code); };
    if (own_group)
      spec.rank_env = {{"RANK", std::to_string(rank->rank)},
                       {"WORLD_SIZE", std::to_string(rank->world_size)},
                       {"LOCAL_RANK", std::to_string(rank->local_rank)},
                       {"MASTER_ADDR", rank->store_host},
                       {"MASTER_PORT", std::to_string(shared_free_port(*p.process_group, "step_port"))}};
  }
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
Result read_item_result(const std::string& path) {
  RunReport report = read_results_file(path);
  if (report.results.size() != 1) throw std::runtime_error("expected one result");
  return std::move(report.results.front());
}

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

std::vector<std::string> item_argv(const std::string& binary, const std::string& subcommand, const Config& config,
                                   const PlanItem& item) {
  std::vector<std::string> argv{binary, subcommand, "--config", config.path, "--config-sha256", config.sha256,
          "--workload-index", std::to_string(item.workload_index),
          "--configuration-index", std::to_string(item.configuration_index)};
  if (config.native) argv.push_back("--native");
  return argv;
}

std::vector<std::string> measure_item_argv(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                                           const std::string& out_path) {
  std::vector<std::string> argv = item_argv(options.process.pperf_binary, "measure-item", config, item);
  argv.insert(argv.end(), {"--out", out_path});
  if (options.process.native && !config.native) argv.push_back("--native");
  if (options.process.terminal_progress) argv.push_back("--progress");
  if (!options.process.trace_dir.empty()) argv.insert(argv.end(), {"--trace", options.process.trace_dir});
  if (const auto& rank = options.process.rank)
    for (const std::string& a :
         {std::string("--rank"), std::to_string(rank->rank), std::string("--world-size"), std::to_string(rank->world_size),
          std::string("--local-rank"), std::to_string(rank->local_rank), std::string("--store"),
          rank->store_host + ":" + std::to_string(rank->store_port), std::string("--store-prefix"), rank->store_prefix,
          std::string("--launcher"), to_string(rank->launcher)})
      argv.push_back(a);
  return argv;
}

namespace {
/// One measuring process per entry of `ranks` (nullopt: an item without ranks), its Result
/// read back from the first. A rank that fails or dies ends the others at once: the item is
/// `failed`, naming the first rank that did and why.
Result measure_in_children(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                           const std::atomic<bool>& stop_requested, const std::vector<std::optional<RankContext>>& ranks) {
  namespace fs = std::filesystem;
  static int sequence = 0;
  Result skeleton = item.result_skeleton();
  struct Rank {
    std::string out;
    std::unique_ptr<ChildProcess> child;
    std::optional<int> status;
  };
  // Declared before the children: it outlives them, so its clean-up finds them ended.
  ItemMemoryBound memory(options.max_memory_bytes);
  std::vector<Rank> children(ranks.size());
  // Ranks that failed, in the order seen: (rank, why).
  std::vector<std::pair<int64_t, std::string>> failures;
  std::optional<std::chrono::steady_clock::time_point> kill_at;
  bool ended_by_us = false;
  try {
    for (size_t i = 0; i < ranks.size(); ++i) {
      children[i].out = (fs::temp_directory_path() / fmt::format("pperf-item-{}-{}.json", getpid(), sequence++)).string();
      ExecutorOptions child_options = options;
      child_options.process.rank = ranks[i];
      SpawnOptions spawn;
      spawn.argv = measure_item_argv(config, item, child_options, children[i].out);
      if (ranks[i] && ranks[i]->rank != 0)
        spawn.argv.erase(std::remove(spawn.argv.begin(), spawn.argv.end(), "--progress"), spawn.argv.end());
      // If pperf dies, the measuring process dies at once (and its data workers with it).
      spawn.death_signal = SIGKILL;
      spawn.own_process_group = true;  // a terminal's Ctrl-C reaches pperf alone, which forwards it
      memory.prepare(spawn);
      children[i].child = std::make_unique<ChildProcess>(spawn);
      memory.watch(*children[i].child);
    }
    bool forwarded = false;
    for (size_t running = children.size(); running > 0;) {
      for (size_t i = 0; i < children.size(); ++i) {
        Rank& c = children[i];
        if (c.status) continue;
        c.status = c.child->wait(children.size() == 1 ? 0.1 : 0.02);
        if (!c.status) continue;
        --running;
        if (children.size() == 1 || ended_by_us) continue;
        // A rank that ended: did it fail? Then the group cannot go on.
        std::string why;
        std::error_code ec;
        if (!fs::exists(c.out, ec)) {
          why = describe_wait_status(*c.status) + " without a result";
        } else {
          try {
            const Result r = read_item_result(c.out);
            if (r.status == ResultStatus::failed) why = r.reason;
          } catch (const std::exception& e) {
            why = std::string("unreadable result: ") + e.what();
          }
        }
        if (why.empty()) continue;
        failures.emplace_back(ranks[i]->rank, why);
        // Its peers fail on their own within moments (their collectives lose it); a second
        // later the ones still running are ended.
        if (!kill_at) kill_at = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      }
      if (kill_at && !ended_by_us && std::chrono::steady_clock::now() >= *kill_at) {
        ended_by_us = true;
        for (auto& other : children)
          if (!other.status) other.child->signal(SIGKILL);
      }
      if (stop_requested && !forwarded) {
        for (auto& c : children)
          if (!c.status) c.child->signal(SIGINT);  // finish the current step, write what was measured
        forwarded = true;
      }
    }
  } catch (const std::exception& e) {
    return failed_result(std::move(skeleton), std::string("cannot start the measuring process: ") + e.what());
  }
  std::error_code ec;
  const std::string out = children.front().out;
  const int status = children.front().status.value_or(0);
  Result result;
  if (memory.over_limit()) {
    result = failed_result(std::move(skeleton), memory.failure_reason());
  } else if (!failures.empty()) {
    // The cause, rather than a peer that lost it: a rank whose failure is not a lost connection.
    auto lost_peer = [](const std::string& why) {
      return why.find("Gloo") != std::string::npos || why.find("gloo") != std::string::npos ||
             why.find("onnection") != std::string::npos;
    };
    auto cause = std::find_if(failures.begin(), failures.end(), [&](const auto& f) { return !lost_peer(f.second); });
    if (cause == failures.end()) cause = failures.begin();
    result = failed_result(std::move(skeleton), fmt::format("rank {} of {}: {}", cause->first, ranks.size(), cause->second));
  } else if (!fs::exists(out, ec)) {
    result = failed_result(std::move(skeleton), "the measuring process " + describe_wait_status(status) + " without a result");
  } else {
    try {
      result = read_item_result(out);
    } catch (const std::exception& e) {
      result = failed_result(std::move(skeleton), std::string("unreadable result from the measuring process: ") + e.what());
    }
  }
  for (const auto& c : children) fs::remove(c.out, ec);
  memory.record(result);
  return result;
}

/// The parent of a data-parallel item's ranks: all of them here (spawn_local, a store of its
/// own), or this process's one rank in a launcher's group.
Result measure_ranks(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                     const std::atomic<bool>& stop_requested) {
  static int item_sequence = 0;
  const DistributedSettings& d = *item.configuration->execution.distributed;
  const std::string prefix = fmt::format("item{}/", item_sequence++);
  if (const auto& launcher = options.process.launcher) {
    if (launcher->world_size != d.world_size)
      return failed_result(item.result_skeleton(),
                           fmt::format("{}/execution/distributed/world_size is {}, the launcher started {} ranks",
                                       item.configuration->pointer, d.world_size, launcher->world_size));
    RankContext rank = *launcher;
    rank.store_prefix = prefix;
    return measure_in_children(config, item, options, stop_requested, {rank});
  }
  RankContext host;
  host.world_size = d.world_size;
  std::unique_ptr<RunStore> store;
  try {
    store = std::make_unique<RunStore>(host, true, d.timeout_s);
  } catch (const std::exception& e) {
    return failed_result(item.result_skeleton(), e.what());
  }
  std::vector<std::optional<RankContext>> ranks;
  for (int64_t r = 0; r < d.world_size; ++r) {
    RankContext rank = host;
    rank.rank = r;
    rank.local_rank = r;
    rank.store_port = store->port();
    rank.store_prefix = prefix;
    ranks.push_back(rank);
  }
  return measure_in_children(config, item, options, stop_requested, ranks);
}
}  // namespace

Result measure_item_in_child(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                             const std::atomic<bool>& stop_requested) {
  if (item.configuration->execution.distributed) return measure_ranks(config, item, options, stop_requested);
  return measure_in_children(config, item, options, stop_requested, {std::nullopt});
}

namespace {
/// Items that take turns: a workload's configurations, two or more, none data-parallel, in a
/// run that neither asked for --sequential nor measures in this process or under a launcher.
bool takes_turns(const std::vector<const PlanItem*>& group, const ExecutorOptions& options) {
  if (group.size() < 2 || options.process.sequential || options.process.in_process || options.process.launcher) return false;
  return std::none_of(group.begin(), group.end(),
                      [](const PlanItem* item) { return item->configuration->execution.distributed.has_value(); });
}
}  // namespace

std::vector<Result> run_plan(const Config& config, const Plan& plan, const WorkloadRegistry& registry,
                             const ExecutorOptions& options, const std::atomic<bool>& stop_requested,
                             MeasureObserver& observer) {
  std::vector<Result> results;
  for (size_t i = 0; i < plan.items.size() && !stop_requested;) {
    // The items of one workload entry (same workload, preset and batch size) side by side.
    std::vector<const PlanItem*> group;
    for (size_t j = i; j < plan.items.size() && plan.items[j].workload_index == plan.items[i].workload_index; ++j)
      group.push_back(&plan.items[j]);
    if (takes_turns(group, options)) {
      for (Result& r : measure_interleaved(config, group, options, stop_requested, observer)) results.push_back(std::move(r));
      i += group.size();
    } else {
      const PlanItem& item = plan.items[i++];
      observer.setting_up(item);
      observer.started(item);
      if (options.process.launcher && options.process.launcher->rank != 0 && !item.configuration->execution.distributed) {
        // Under a launcher, an item without ranks is rank 0's alone.
        Result r = item.result_skeleton();
        r.status = ResultStatus::not_run;
        r.reason = "measured by rank 0";
        results.push_back(std::move(r));
      } else {
        results.push_back(options.process.in_process && !item.configuration->execution.distributed
                              ? measure_item_here(config, item, registry, options, stop_requested)
                              : measure_item_in_child(config, item, options, stop_requested));
      }
    }
    fill_scaling_efficiency(results);
    observer.results(results);
  }
  return results;
}

}  // namespace pperf
