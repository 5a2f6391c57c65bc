#pragma once
// libtorch facts and thread settings, behind a torch-free header.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

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
///  "built_with_cuda", "cuda_version", "nccl_version", "cuda_devices"}; the versions are those
/// libtorch was built with (null without CUDA / NCCL).
nlohmann::json torch_facts();

/// "libtorch 2.15.0, CUDA 13.2, NCCL 2.30.7" or "libtorch 1.13.0, CPU only": what this pperf
/// runs on, asked of libtorch itself (no GPU needed).
std::string torch_build_summary();

/// GPUs libtorch can train on here (0 with a CPU-only libtorch or no GPU).
int64_t torch_cuda_devices();

}  // namespace pperf
