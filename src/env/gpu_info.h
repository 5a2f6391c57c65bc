#pragma once
// NVIDIA GPUs as nvidia-smi reports them. nvidia-smi ships with the driver, so this works
// whatever libtorch pperf was built with; on a host without it every answer is "none".
#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "src/core/result.h"
#include "src/core/process.h"

namespace pperf {

/// The host's GPUs: [{"index", "name", "memory_mib", "driver"}], and {"cuda_driver": "12.2"}
/// from nvidia-smi's banner, as {"gpus": [...], "cuda_driver": ...}; null without nvidia-smi.
nlohmann::json nvidia_gpu_facts();

/// The name nvidia-smi gives GPU `id` (an index or UUID, as map_to_nvidia_smi gives it), e.g.
/// "NVIDIA A100-SXM4-40GB"; "" without nvidia-smi, for "all" or an unknown id.
std::string nvidia_gpu_name(const std::string& id);

/// One nvidia-smi reading: when it arrived (steady clock, ms since its epoch, as the runner's
/// clock reads it), utilization.gpu (%) and memory.used (MiB).
struct GpuSample {
  double at_ms = 0, utilization_pct = 0, memory_mib = 0;
};

/// A span of the steady clock, [start_ms, end_ms] (ms).
struct TimeWindow {
  double start_ms = 0, end_ms = 0;
};

/// The summary of `samples` of GPU `gpu`: every one, or (`windows` non-null) only those taken
/// inside a window, e.g. a configuration's own rounds while configurations take turns on one
/// GPU. nullopt when none counts.
std::optional<GpuUtilization> summarize_gpu_samples(const std::vector<GpuSample>& samples, const std::string& gpu,
                                                    const std::vector<TimeWindow>* windows = nullptr);

/// Samples utilization.gpu and memory.used of one GPU (`gpu`, as map_to_nvidia_smi gives it;
/// "all": every GPU of the host, pooled) every `period_ms` while it lives
/// (`nvidia-smi --query-gpu=... -i GPU -lms`), in a child process that dies with pperf.
class GpuSampler {
 public:
  /// Does nothing (finish() gives nullopt) when nvidia-smi is not on PATH.
  GpuSampler(int period_ms, std::string gpu);
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;
  /// Stops sampling; the summary of the samples inside `own_windows` (null: all of them), or
  /// nullopt when none counts (then why_none() says why).
  std::optional<GpuUtilization> finish(const std::vector<TimeWindow>* own_windows = nullptr);
  /// After a finish() that gave nullopt with nvidia-smi present: why, as an event ("" otherwise),
  /// e.g. utilization given as N/A (MIG instances), or no reading inside the own windows.
  const std::string& why_none() const { return why_none_; }

 private:
  void take(const std::string& line);  // one line of nvidia-smi's output
  std::string gpu_;
  int period_ms_ = 0;
  std::optional<ChildProcess> child_;
  std::atomic<bool> stop_{false};
  std::thread reader_;
  std::vector<GpuSample> samples_;  // written by reader_ until finish() joins it
  int64_t unavailable_ = 0;         // lines whose utilization was "[N/A]" or "[Not Supported]"
  std::string first_other_;         // the first line that was neither, e.g. "No devices were found"
  std::string why_none_;
};

/// One `utilization.gpu, memory.used` CSV line (noheader, nounits), e.g. "35, 1024";
/// nullopt for anything else ("[N/A]", a banner).
std::optional<std::pair<double, double>> parse_gpu_sample(const std::string& line);

/// How nvidia-smi -i names the GPU that CUDA calls `ordinal` in this process: the
/// `ordinal`-th entry of `cuda_visible_devices` (an index, a UUID or a MIG id: nvidia-smi takes
/// each), or, when that is unset (null), the ordinal itself. An index is nvidia-smi's only when
/// CUDA counts in PCI order (`cuda_device_order` "PCI_BUS_ID", pperf's default): under CUDA's
/// fastest-first order the id is "all" (every GPU, pooled), as it is when the ordinal is not
/// visible; `why_all` then says why, for the result's events.
struct SmiGpuId {
  std::string id;
  std::string why_all;  // "" when id names one GPU
};
SmiGpuId map_to_nvidia_smi(int ordinal, const char* cuda_visible_devices, const char* cuda_device_order);

/// Path of `program` on $PATH, "" when absent.
std::string find_on_path(const std::string& program);

/// The CPUs of the NUMA node that CUDA device `ordinal` hangs off, for pinning that GPU's rank
/// (a rank fed from the far node pays for every host-to-device copy across the interconnect).
/// `ordinal` is the CUDA ordinal the rank trains on (cuda_ordinal_of_rank: 0 under Slurm's
/// --gpus-per-task=1, whatever its local rank), not the local rank.
/// The ordinal is mapped as CUDA maps it under CUDA_DEVICE_ORDER=PCI_BUS_ID (pperf's default,
/// set at start-up): through `cuda_visible_devices` (null: unset; indices only) onto the GPUs
/// the driver lists in PCI order under ROOT/proc/driver/nvidia/gpus, then
/// ROOT/sys/bus/pci/devices/BUS/numa_node and ROOT/sys/devices/system/node/nodeN/cpulist.
/// nullopt when any link is unknown (no driver listing, UUIDs, another device order, a node
/// of -1 on single-node hosts); then the rank is not pinned. `root` is "" except in tests.
std::optional<std::vector<int>> gpu_numa_cpus(int ordinal, const char* cuda_visible_devices,
                                              const char* cuda_device_order, const std::string& root = "");

/// "0-3,8,10-11" (sysfs cpulist) as {0, 1, 2, 3, 8, 10, 11}; nullopt when malformed.
std::optional<std::vector<int>> parse_cpu_list(const std::string& text);

}  // namespace pperf
