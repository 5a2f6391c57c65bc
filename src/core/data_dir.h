#pragma once
// Where pperf's read-only data (price tables, schemas) lives, so an installed binary works
// from any directory.
#include <string>

#include <nlohmann/json.hpp>

namespace pperf {

/// The first of: `<dir of the binary>/../share/pperf` (an installed pperf), `$PPERF_DATA_DIR`,
/// the source tree pperf was built from; each only if it holds `pricing/tables`.
/// Throws std::runtime_error naming every place looked at when none does.
std::string data_dir();

/// A script pperf ships (e.g. "pperf-step-worker.py"): next to `pperf_binary` (a build or an
/// installed bin/), else in `<data dir>/python`. Throws std::runtime_error naming the places
/// looked at.
std::string find_shipped_script(const std::string& pperf_binary, const std::string& name);

/// Where pperf keeps what it measured once per host and may measure again (peak GEMM rate,
/// memory probes): $PPERF_CACHE_DIR, else $XDG_CACHE_HOME/pperf, else ~/.cache/pperf.
std::string cache_dir();

/// A cache file's JSON object; an empty object when it is missing or unreadable (a cache that
/// cannot be read costs a re-measure, nothing else).
nlohmann::json read_json_cache(const std::string& path);
/// Writes `cache` to `path` atomically; a failure is ignored, for the same reason.
void write_json_cache(const std::string& path, const nlohmann::json& cache);

}  // namespace pperf
