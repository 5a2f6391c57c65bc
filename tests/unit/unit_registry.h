#pragma once
// A torch-free workload registry for the unit tests: the real workloads live in the torch
// library, which tests/unit must not link.
#include "src/core/workload_registry.h"

namespace pperf::testing {
/// One workload, "mnist_heavy", with presets full/tiny and params data (choice), data_dir, lr,
/// sizes (integer_list); no factories.
const WorkloadRegistry& fixture_workloads();
}  // namespace pperf::testing
