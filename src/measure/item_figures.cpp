#include "src/measure/item_figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <tuple>

#include "src/env/cpu_usage.h"
#include "src/env/host_info.h"
#include "src/config/plan.h"
#include "src/core/mfu.h"
#include "src/core/process.h"
#include "src/measure/runner.h"
#include "src/measure/peak_flops.h"
#include "src/measure/torch_info.h"
#include "workloads/common/local_loader.h"
#include "workloads/common/torch_compat.h"

namespace pperf {

CpuSample CpuSample::now(const std::vector<int>& data_pids) {
  CpuSample s;
  std::tie(s.trainer_s, s.loader_s) = own_threads_cpu_s(kLoaderThreadName);
  s.data_processes_s = processes_cpu_s(data_pids);
  s.host_busy_s = host_busy_cpu_s();
  s.load_average = load_average_1m();
  s.wall_ms = steady_clock().now_ms();
  return s;
}

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

}  // namespace pperf
