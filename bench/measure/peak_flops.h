#pragma once
// This host's peak matrix-multiply rate, the denominator of MFU. Torch-free header.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace pperf {

/// {"fp32": GFLOP/s, "bf16": GFLOP/s or null, "gemm": "MxKxN", "threads": T, "seconds": s}:
/// the rate of repeated square GEMMs (2 n^3 FLOPs each; total FLOPs / total time) on all of this host's logical CPUs,
/// ~`seconds_each` per precision; bf16 as CPU autocast runs it (null when it fails). libtorch's
/// intra-op thread count is restored afterwards.
nlohmann::json measure_peak_gflops(double seconds_each = 0.75);

/// GFLOP/s of repeated n x n x n GEMMs (total FLOPs / total time, at least ~`seconds` and 3
/// GEMMs) at libtorch's current intra-op thread count; `precision` "fp32" or "bf16" (plain bf16
/// tensors, as CPU autocast runs them). Throws what libtorch throws where bf16 does not work.
double gemm_gflops(const std::string& precision, int64_t n, double seconds);

/// measure_peak_gflops() once per host fingerprint: cached in `cache_path` (a JSON object keyed
/// by fingerprint); a missing or unreadable cache is measured and rewritten.
nlohmann::json cached_peak_gflops(const std::string& fingerprint, const std::string& cache_path);

/// ${PPERF_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pperf}/peak_gflops.json
std::string default_peak_cache_path();

}  // namespace pperf
