#pragma once
// python_step: the user's own training step, written in Python (any framework, any device that
// Python reaches), run by a worker process (python/pperf-step-worker.py) one step per request.
// pperf's runner still owns the clock: it times "step i requested" -> "step i done after the
// object's synchronize()". docs/python_step.md has the protocol.
#include <string>

#include "src/core/workload_registry.h"

namespace pperf {

WorkloadDescriptor python_step_descriptor();

}  // namespace pperf
