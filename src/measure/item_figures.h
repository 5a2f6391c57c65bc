#pragma once
// The figures of an item measured in this process beside its step times: CPU time and load
// around the steps (for the bottleneck verdict), a configuration's own rounds when taking turns,
// a GPU's GEMM peaks. Internal to src/measure (measure_here.cpp).
#include <string>
#include <vector>

#include "src/config/config.h"
#include "src/core/bottleneck.h"
#include "src/core/result.h"
#include "src/env/gpu_info.h"
#include "src/measure/device.h"
#include "src/measure/turns.h"

namespace pperf {

/// CPU time and load while an item's steps run (warmup included), for the bottleneck verdict.
struct CpuSample {
  double trainer_s = 0, loader_s = 0, data_processes_s = 0, host_busy_s = 0, load_average = 0, wall_ms = 0;
  /// Now: the trainer's and its loader threads' CPU time, `data_pids`' and the host's, the load
  /// average, the steady clock.
  static CpuSample now(const std::vector<int>& data_pids);
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
                         std::vector<TimeWindow>& own_rounds);

/// The verdict from two samples around the steps. Busy fractions are of the CPUs each side can
/// use: the trainer's CPU set; the data side's preprocessing threads or processes, at most as
/// many as their CPU set has (workers elsewhere, at `endpoints`, are not seen).
Bottleneck bottleneck_of(const Result& r, const ExecutionSettings& exec, const std::vector<int>& cpus,
                         const CpuSample& before, const CpuSample& after, bool data_processes);

/// A GPU's GEMM peaks, MFU's denominators for results on it: fp32 (TF32 off), tf32 and bf16,
/// measured once per GPU model and libtorch (after the steps, so they are untouched) and cached
/// beside the CPUs' peak; with the run's TF32 settings and the datasheet's peaks of that model.
DevicePeak gpu_peak(const Device& device, const std::string& smi_id);

}  // namespace pperf
