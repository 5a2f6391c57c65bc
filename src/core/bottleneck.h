#pragma once
// Where a result's time went, and what that says: input-bound, compute-bound or
// communication-bound. Pure: the measuring side gathers the figures, this names the verdict.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace pperf {

/// What was observed over an item's steps (fractions in [0, 1]; absent when not known).
struct BottleneckEvidence {
  double data_wait_fraction = 0;          // of step time, waiting for the next batch
  double trainer_cpu_busy = 0;            // trainer threads' CPU time / (wall x its CPUs)
  std::optional<double> data_cpu_busy;    // loader threads' or data workers' CPU time / (wall x their CPUs)
  /// The data pipeline's CPU time on the trainer's own CPUs / (wall x the trainer's CPUs): local
  /// loader threads, a local Python worker, spawned workers whose CPU set overlaps the trainer's.
  double pipeline_on_trainer_cpus = 0;
  std::optional<double> comm_fraction;    // data-parallel: gradient all-reduce in flight, of step time
  std::optional<double> gpu_busy;         // nvidia-smi utilization.gpu
  /// Everything else on the host: its CPU time / (wall x the host's logical CPUs), the host's
  /// 1-minute load average at the end, and its logical CPUs (0: not known, no contention said).
  double others_cpu_busy = 0;
  double load_average = 0;
  int64_t logical_cpus = 0;
};

struct Bottleneck {
  std::string verdict;   // "input-bound" | "compute-bound" | "communication-bound"
  std::string evidence;  // one line, e.g. "data wait 41 %, data CPUs 99 % busy: more data workers ... would help"
  double trainer_cpu_pct = 0;
  std::optional<double> data_cpu_pct;
  double load_average_before = 0, load_average_during = 0;  // the host's 1-minute load average
  double others_cpu_pct = 0;  // CPU time of everything else on the host, % of all its CPUs
};

class JsonView;
/// The result's `bottleneck` object (docs/results.md) and back.
nlohmann::json to_json(const Bottleneck& b);
Bottleneck read_bottleneck(const JsonView& v);

/// Data wait of 10 % or more is input-bound (unless the all-reduce takes longer still); an
/// all-reduce in flight 30 % of the step or more, and longer than the data wait, is
/// communication-bound; a data pipeline taking 15 % or more of the trainer's own CPUs is
/// input-bound too (the batch is ready, but the trainer waited for its CPUs: seed 000's case);
/// anything else is compute-bound. A trainer that leaves its CPUs idle while other processes take
/// a quarter or more of the host's CPU time is compute-bound by contention: the evidence says the
/// CPUs were taken by others and what to do, not that the trainer wants more threads.
Bottleneck bottleneck_verdict(const BottleneckEvidence& e);

/// "" or a warning when something other than this measurement used at least a quarter of the
/// host's CPU time while it ran (`others_cpu_busy`: their CPU time / (wall x logical CPUs)).
std::string busy_neighbour_warning(double others_cpu_busy, int64_t logical_cpus);

}  // namespace pperf
