#pragma once
// Where `pperf run` measured: the placement record (src/core/result.h) from the variables a
// launcher sets, and this machine's fingerprint. `pperf decide` tells replicates apart by it.
//
// The contract (docs/results.md "placement"; `pperf launch` sets these from the platform's own):
//   PPERF_PLATFORM (default "local"), PPERF_JOB_NAME, PPERF_JOB_ID, PPERF_INSTANCE_TYPE,
//   PPERF_INSTANCE_ID, PPERF_HOST_GROUP, PPERF_HOST_ID (default: the host fingerprint).
// A variable unset or empty is null in the record. Capturing never fails.
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

#include "src/core/result.h"

namespace pperf {

/// Reads one environment variable; nullopt when unset or empty.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
/// The process environment.
std::optional<std::string> process_env(const std::string& name);

/// 16 hex digits of SHA-256 over this machine's stable facts: /etc/machine-id (when readable),
/// the hostname, CPU model, logical CPUs, memory and the GPUs' names from `host`
/// (capture_host). Unlike the history's fingerprint (facts that make step times comparable,
/// pooled across machines of one kind), this one tells two machines of one kind apart.
std::string machine_fingerprint(const nlohmann::json& host, const std::string& machine_id);
/// machine_fingerprint with this machine's /etc/machine-id ("" when unreadable).
std::string machine_fingerprint(const nlohmann::json& host);

/// The placement record from `env` (default: the process environment) and `host`.
Placement capture_placement(const nlohmann::json& host, const EnvLookup& env = process_env);

}  // namespace pperf
