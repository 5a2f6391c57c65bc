#pragma once
// How a result was obtained: the machine, the BLAS actually loaded, the tool's own git sha.
// Capturing never fails: a fact that cannot be read is recorded as "unknown".
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pperf {

/// hostname, os, kernel, cpu_model, logical_cpus, usable_cpus (affinity), memory_gib, blas
/// {library, path}, argv. Torch facts are added by torch_info().
nlohmann::json capture_host(const std::vector<std::string>& argv);

/// This host's name; "unknown" when it cannot be read.
std::string hostname();

/// The BLAS shared library loaded into this process, resolved through symlinks (Debian's
/// alternatives), e.g. {"library": "openblas-pthread", "path": "/usr/lib/.../libblas.so.3"}.
nlohmann::json loaded_blas();

/// A process's peak resident memory so far (VmHWM), bytes; 0 if unknown or gone. pid 0: this one.
int64_t peak_rss_bytes(int pid = 0);
/// A process's resident memory now (VmRSS), bytes; 0 if unknown or gone. pid 0: this one.
int64_t rss_bytes(int pid = 0);
/// Starts this process's peak resident memory afresh from what it holds now (clear_refs), so
/// peak_rss_bytes() covers only what follows. False where the kernel does not allow it.
bool reset_peak_rss();
/// Memory the kernel says is available for new allocations (MemAvailable), bytes; 0 if unknown.
int64_t available_memory_bytes();


}  // namespace pperf
