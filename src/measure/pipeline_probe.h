#pragma once
// A workload's input pipeline timed alone on this host: the CPU-seconds it spends per sample
// making batches (no trainer, no transport), on 1 thread and on N at once (its scaling). Used by
// `pperf project` when nothing else measured the pipeline (a priced-only config's given step is
// the trainer's). Torch-free header.
#include <cstdint>
#include <string>

#include "src/core/workload_registry.h"

namespace pperf {

struct PipelineProbe {
  int threads = 1;
  int64_t batches = 0;             // made in all, over every thread (the first per thread not counted)
  double cpu_s_per_sample = 0;     // the process's CPU time over the counted batches / their samples
  double rel_ci95 = 0;             // the mean's 95 % half-width / mean (1.96 sd / sqrt(batches))
  double wall_s = 0;
};

/// Builds `spec`'s pipeline once and has `threads` threads make batches of distinct indices
/// until `seconds` of wall time have passed and each made at least `min_batches` (a thread's
/// first batch, which pays for warm-up, is made but not counted), each batch timed on its
/// thread's CPU clock (the spread); the figure is this process's CPU time over them (so work
/// the pipeline hands to torch's thread pool counts). Throws what the workload's pipeline throws (e.g. a missing data file).
PipelineProbe probe_pipeline(const WorkloadDescriptor& descriptor, const WorkloadSpec& spec, int threads, double seconds,
                             int64_t min_batches = 3);

}  // namespace pperf
