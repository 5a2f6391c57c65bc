#pragma once
// python_step: the user's own training step, written in Python (any framework, any device that
// Python reaches), run by a worker process (python/pperf-step-worker.py) one step per request.
// pperf's runner still owns the clock: it times "step i requested" -> "step i done after the
// object's synchronize()". docs/python_step.md has the protocol.
#include <string>

#include "bench/core/workload_registry.h"

namespace pperf {

WorkloadDescriptor python_step_descriptor();

/// pperf-step-worker.py: next to `pperf_binary` (a build or an installed bin/), else in
/// `<data dir>/python`. Throws std::runtime_error naming the places looked at.
std::string find_python_step_worker(const std::string& pperf_binary);

/// Imports `spec`'s module and finds its factory without building anything (the worker's
/// --check): "" when found, else one line naming the module and the error.
std::string check_python_step(const WorkloadSpec& spec);

}  // namespace pperf
