#pragma once
// libtorch facts and thread settings, behind a torch-free header.
#include <nlohmann/json.hpp>

#include <cstdint>

namespace pperf {

struct AppliedThreads {
  int64_t threads = 0;          // effective intra-op threads
  int64_t interop_threads = 0;  // effective inter-op threads
};

/// Sets libtorch's intra-op threads (and OpenBLAS's, which libtorch does not set), and inter-op
/// threads where still possible: libtorch fixes those once any inter-op work has run, so the
/// effective value is read back and reported rather than assumed.
AppliedThreads apply_threads(int64_t threads, int64_t interop_threads);

/// {"libtorch_version", "intra_op_threads", "interop_threads", "openblas_threads",
///  "built_with_cuda", "cuda_devices"}.
nlohmann::json torch_facts();

/// GPUs libtorch can train on here (0 with a CPU-only libtorch or no GPU).
int64_t torch_cuda_devices();

}  // namespace pperf
