#pragma once
// What a data-parallel measurement adds to a Result: the group (world size, backend, how it was
// launched), each rank's own figures, and the gradient all-reduce's cost. Filled by the measure
// stage on rank 0 from every rank's samples (gathered once, at the end); written and read with
// the rest of the results file. Torch-free.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "src/core/json_view.h"
#include "src/core/kinds.h"

namespace pperf {

struct Result;

struct RankReport {
  int64_t rank = 0;
  std::string host;
  std::vector<int> cpus;            // the rank's CPU set (empty: not pinned)
  double median_ms = 0;             // this rank's own median step time
  double data_wait_fraction = 0;
};

/// DistributedReport::backend of ranks whose step forms its own group (python_step): their
/// communication is inside the step time, unseen by pperf (all-reduce figures are 0).
inline constexpr const char* kStepOwnBackend = "step";

struct DistributedReport {
  int64_t world_size = 1;
  std::string backend;   // "gloo" | "nccl" | kStepOwnBackend
  /// The engine that ran the collectives, by its own name (Backend::getBackendName: "gloo",
  /// "nccl", torch 2.15's "nccl2"); "" for a step's own group, and in files from before it.
  std::string engine;
  Launcher launcher = Launcher::spawn_local;
  std::vector<RankReport> ranks;
  /// Per step, the time at least one gradient bucket's all-reduce was in flight (the union of
  /// the buckets' launch-to-done intervals, rank 0), ms: median and p95 over the measured steps.
  double allreduce_median_ms = 0, allreduce_p95_ms = 0;
  /// Sum of in-flight all-reduce time over the sum of step times (mean over ranks): the share of
  /// a step spent communicating, overlapped with backward or not.
  double comm_fraction = 0;
  int64_t bytes_per_step = 0;  // gradient bytes each rank all-reduces per step
  /// throughput(N) / (N x throughput(1 rank)) when the run measured the 1-rank case too.
  std::optional<double> scaling_efficiency;
};

nlohmann::json to_json(const DistributedReport& d);
DistributedReport read_distributed(const JsonView& v);

/// Sets scaling_efficiency on every data-parallel result whose workload (and preset, batch size)
/// also has an ok 1-rank data-parallel result in `results`.
void fill_scaling_efficiency(std::vector<Result>& results);

/// One line for a result's events: "2 ranks (gloo, spawn_local): all-reduce 3.1 ms median, ...".
std::string describe(const DistributedReport& d);

}  // namespace pperf
