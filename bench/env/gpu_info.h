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

#include "bench/core/result.h"
#include "bench/env/process.h"

namespace pperf {

/// The host's GPUs: [{"index", "name", "memory_mib", "driver"}], and {"cuda_driver": "12.2"}
/// from nvidia-smi's banner, as {"gpus": [...], "cuda_driver": ...}; null without nvidia-smi.
nlohmann::json nvidia_gpu_facts();

/// The name nvidia-smi gives GPU `id` (an index or UUID, as nvidia_smi_gpu_id gives it), e.g.
/// "NVIDIA A100-SXM4-40GB"; "" without nvidia-smi, for "all" or an unknown id.
std::string nvidia_gpu_name(const std::string& id);

/// Samples utilization.gpu and memory.used of one GPU (`gpu`, as nvidia-smi_gpu_id gives it;
/// "all": every GPU of the host, pooled) every `period_ms` while it lives
/// (`nvidia-smi --query-gpu=... -i GPU -lms`), in a child process that dies with pperf.
class GpuSampler {
 public:
  /// Does nothing (finish() gives nullopt) when nvidia-smi is not on PATH.
  GpuSampler(int period_ms, std::string gpu);
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;
  /// Stops sampling; the summary, or nullopt when nothing was sampled.
  std::optional<GpuUtilization> finish();

 private:
  std::string gpu_;
  std::optional<ChildProcess> child_;
  std::atomic<bool> stop_{false};
  std::thread reader_;
  std::vector<std::pair<double, double>> samples_;  // (utilization %, memory MiB), read by reader_
};

/// One `utilization.gpu, memory.used` CSV line (noheader, nounits), e.g. "35, 1024";
/// nullopt for anything else ("[N/A]", a banner).
std::optional<std::pair<double, double>> parse_gpu_sample(const std::string& line);

/// How nvidia-smi -i names the GPU that CUDA calls `ordinal` in this process: the
/// `ordinal`-th entry of `cuda_visible_devices` (an index, a UUID or a MIG id: nvidia-smi takes
/// each), or, when that is unset (null) and CUDA counts in PCI order (`cuda_device_order`
/// "PCI_BUS_ID", pperf's default), the ordinal itself, nvidia-smi's own order. "all" when the
/// mapping is unknown (CUDA's default fastest-first order) or the ordinal is not visible.
std::string nvidia_smi_gpu_id(int ordinal, const char* cuda_visible_devices, const char* cuda_device_order);

/// Path of `program` on $PATH, "" when absent.
std::string find_on_path(const std::string& program);

/// The CPUs of the NUMA node that CUDA device `ordinal` hangs off, for pinning that GPU's rank
/// (a rank fed from the far node pays for every host-to-device copy across the interconnect).
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
