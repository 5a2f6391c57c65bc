#pragma once
// `pperf run --trace DIR`: a Chrome/Perfetto trace of a few steps of an item, taken after its
// measured steps (so the profiler's cost is in none of them) by libtorch's profiler: Kineto
// where the libtorch has it (PyPI's 2.x: operators, and on a GPU its kernels and copies), else
// the legacy autograd profiler (Debian's 1.13: the operators on the training thread). Each step
// is a range "ProfilerStep#N" (N: the step's index in the item's run, torch.profiler's naming)
// opened and closed inside the runner's clock reads, so the trace's steps are pperf's steps.
// Written in Chrome's object form with numeric ids, whichever profiler made it.
#include <string>

#include "src/core/result.h"
#include "src/measure/device.h"
#include "workloads/workload.h"

namespace pperf {

/// Traced steps per item, and un-timed steps before them (the pipeline back to steady state).
constexpr int64_t kTracedSteps = 5;
constexpr int64_t kStepsBeforeTrace = 2;

/// "kineto" where this libtorch has Kineto, else "autograd-legacy".
std::string trace_profiler();

/// The trace file's name for an item: "WORKLOAD.CONFIGURATION.json", characters other than
/// letters, digits, '-', '_' and '.' replaced by '_'.
std::string trace_file_name(const std::string& workload, const std::string& configuration);

/// A Chrome trace (`text`: the legacy profiler's bare array of events, or Kineto's object) in
/// Chrome's object form: {"traceEvents": [...], "displayTimeUnit": "ms", ...the object's other
/// keys}, every pid and tid a number (Perfetto's importer and chrome://tracing loaders read
/// that). A pid or tid given as a name ("CPU Functions") gets a number of its own (the first pid
/// `pid`, this process's) and a process_name / thread_name metadata event naming it.
std::string chrome_trace_object(const std::string& text, int64_t pid);

/// Traces kTracedSteps steps (after kStepsBeforeTrace un-timed ones) into `path` (written
/// atomically), the item having run `steps_before` steps so far (warmup, measured, un-timed);
/// returns what the result records. Throws when the profiler or the file fails.
TraceReport trace_steps(Workload& workload, DataSource& data, const Device& device, int64_t steps_before,
                        const std::string& path);

}  // namespace pperf
