#include "src/core/bottleneck.h"

#include <fmt/format.h>

#include "src/core/json_view.h"

namespace pperf {

nlohmann::json to_json(const Bottleneck& b) {
  return {{"verdict", b.verdict},
          {"evidence", b.evidence},
          {"trainer_cpu_pct", b.trainer_cpu_pct},
          {"data_cpu_pct", value_or_null(b.data_cpu_pct)},
          {"load_average_before", b.load_average_before},
          {"load_average_during", b.load_average_during},
          {"others_cpu_pct", b.others_cpu_pct}};
}

Bottleneck read_bottleneck(const JsonView& v) {
  Bottleneck b;
  b.verdict = v.at("verdict").as_string();
  b.evidence = v.at("evidence").as_string();
  b.trainer_cpu_pct = v.at("trainer_cpu_pct").as_number();
  b.data_cpu_pct = v.find_number("data_cpu_pct");
  b.load_average_before = v.at("load_average_before").as_number();
  b.load_average_during = v.at("load_average_during").as_number();
  b.others_cpu_pct = v.at("others_cpu_pct").as_number();
  return b;
}

namespace {
constexpr double kInputBoundWait = 0.10;
constexpr double kCommunicationBound = 0.30;
constexpr double kBusy = 0.85;  // a CPU set this busy has no room left
constexpr double kSharedPipeline = 0.15;  // of the trainer's CPUs taken by preprocessing
constexpr double kBusyNeighbours = 0.25;  // of the host's CPU time taken by other processes

std::string pct(double fraction) { return fmt::format("{:.0f} %", 100 * fraction); }
}  // namespace

Bottleneck bottleneck_verdict(const BottleneckEvidence& e) {
  Bottleneck b;
  b.trainer_cpu_pct = 100 * e.trainer_cpu_busy;
  if (e.data_cpu_busy) b.data_cpu_pct = 100 * *e.data_cpu_busy;
  const std::string gpu = e.gpu_busy ? ", GPU " + pct(*e.gpu_busy) + " busy" : "";
  if (e.comm_fraction && *e.comm_fraction >= kCommunicationBound && *e.comm_fraction > e.data_wait_fraction) {
    b.verdict = "communication-bound";
    b.evidence = fmt::format("gradient all-reduce in flight {} of the step, data wait {}{}: a faster interconnect, "
                             "fewer ranks per link or larger per-rank batches would help",
                             pct(*e.comm_fraction), pct(e.data_wait_fraction), gpu);
  } else if (e.data_wait_fraction >= kInputBoundWait) {
    b.verdict = "input-bound";
    b.evidence = "data wait " + pct(e.data_wait_fraction) + gpu;
    if (!e.data_cpu_busy)
      b.evidence += ": faster or more data workers would help";
    else if (*e.data_cpu_busy < kBusy && e.pipeline_on_trainer_cpus > 0)
      b.evidence += fmt::format(", the data pipeline shares the trainer's CPUs (uses {} of them): preprocessing on "
                                "other CPUs or instances would help",
                                pct(e.pipeline_on_trainer_cpus));
    else if (*e.data_cpu_busy >= kBusy)
      b.evidence += ", data CPUs " + pct(*e.data_cpu_busy) + " busy: more data workers or a data group would help";
    else
      b.evidence += ", data CPUs only " + pct(*e.data_cpu_busy) +
                    " busy: the pipeline is not short of CPU (too few workers for its CPUs, or I/O)";
  } else if (e.pipeline_on_trainer_cpus >= kSharedPipeline) {
    b.verdict = "input-bound";
    b.evidence = fmt::format("the data pipeline uses {} of the trainer's CPUs (trainer threads {}, data wait {}{}): "
                             "preprocessing on other CPUs or instances would give them back",
                             pct(e.pipeline_on_trainer_cpus), pct(e.trainer_cpu_busy), pct(e.data_wait_fraction), gpu);
  } else {
    b.verdict = "compute-bound";
    b.evidence = "data wait " + pct(e.data_wait_fraction) + gpu + ", trainer CPUs " + pct(e.trainer_cpu_busy) + " busy";
    if (e.gpu_busy || e.trainer_cpu_busy >= 0.5)
      b.evidence += ": a faster accelerator or more ranks would help, more data workers would not";
    else if (e.logical_cpus > 0 && e.others_cpu_busy >= kBusyNeighbours)
      b.evidence += fmt::format(": the CPUs were taken by other processes (they used {} of the host's {}, load {:.1f}), "
                                "not left idle by the trainer: rerun when the host is quiet (these step times include "
                                "the contention)",
                                pct(e.others_cpu_busy), e.logical_cpus, e.load_average);
    else
      b.evidence += ": the trainer leaves its CPUs idle (more intra-op threads for its CPU set?)";
  }
  return b;
}

std::string busy_neighbour_warning(double others_cpu_busy, int64_t logical_cpus) {
  if (others_cpu_busy < kBusyNeighbours) return "";
  return fmt::format("busy host: other processes used {} of its {} CPUs while this item ran; its step times "
                     "include their contention",
                     pct(others_cpu_busy), logical_cpus);
}

}  // namespace pperf
