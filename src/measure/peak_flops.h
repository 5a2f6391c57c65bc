#pragma once
// A device's peak matrix-multiply rate (this host's CPUs, or a GPU), the denominator of MFU.
// Torch-free header.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace pperf {

/// {"device", "fp32": GFLOP/s, "bf16": GFLOP/s or null, "gemm": "NxNxN", "seconds": s} and, on
/// the CPU, "threads"; on a GPU, "tf32": GFLOP/s: the best rate of rounds of repeated square
/// GEMMs (2 n^3 FLOPs each; a round's FLOPs / its time, rounds of at least a tenth of the
/// budget), ~`seconds_each` per precision, on `device`: "cpu" (all of this host's logical CPUs;
/// libtorch's intra-op thread count is restored afterwards) or "cuda:N" (that GPU, synchronized
/// before every clock read; "fp32" with TF32 off, "tf32" with it on, torch's setting restored
/// afterwards). bf16 is null where the device cannot run it. Throws std::runtime_error when the
/// device is not there (open_device).
nlohmann::json measure_peak_gflops(const std::string& device = "cpu", double seconds_each = 0.75);

/// GFLOP/s of n x n x n GEMMs on this host's CPUs at libtorch's current intra-op thread count,
/// measured as above for ~`seconds`; `precision` "fp32" or "bf16" (plain bf16 tensors, as CPU
/// autocast runs them). Throws what libtorch throws where bf16 does not work.
double gemm_gflops(const std::string& precision, int64_t n, double seconds);

/// measure_peak_gflops(device) once per fingerprint (which must name the device's hardware):
/// cached in `cache_path` (a JSON object keyed by fingerprint); a missing or unreadable cache,
/// or a GPU's entry without "tf32", is measured and rewritten.
nlohmann::json cached_peak_gflops(const std::string& fingerprint, const std::string& cache_path,
                                  const std::string& device = "cpu");

/// ${PPERF_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pperf}/peak_gflops.json
std::string default_peak_cache_path();

}  // namespace pperf
