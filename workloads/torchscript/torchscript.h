#pragma once
// torchscript: train a user's own TorchScript model (a file saved with torch.jit.save) on
// synthetic N(0, 1) inputs of a given per-sample shape, with cross-entropy over `classes`.
#include "src/core/workload_registry.h"

namespace pperf {
WorkloadDescriptor torchscript_descriptor();
}  // namespace pperf
