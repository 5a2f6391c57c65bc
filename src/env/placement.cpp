#include "src/env/placement.h"

#include <cstdlib>
#include <fstream>

#include "src/core/crypto.h"

namespace pperf {

std::optional<std::string> process_env(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

std::string machine_fingerprint(const nlohmann::json& host, const std::string& machine_id) {
  const auto fact = [&](const char* key) { return host.contains(key) ? host[key].dump() : std::string("unknown"); };
  std::string facts = machine_id + "\n" + fact("hostname") + "\n" + fact("cpu_model") + "\n" + fact("logical_cpus") +
                      "\n" + fact("memory_gib");
  if (host.contains("gpu") && host["gpu"].contains("gpus"))
    for (const auto& g : host["gpu"]["gpus"]) facts += "\n" + g.value("name", std::string("unknown"));
  return sha256_hex(facts).substr(0, 16);
}

std::string machine_fingerprint(const nlohmann::json& host) {
  std::ifstream in("/etc/machine-id");
  std::string id;
  std::getline(in, id);
  return machine_fingerprint(host, id);
}

Placement capture_placement(const nlohmann::json& host, const EnvLookup& env) {
  Placement p;
  p.platform = env("PPERF_PLATFORM").value_or("local");
  p.job_name = env("PPERF_JOB_NAME");
  p.job_id = env("PPERF_JOB_ID");
  p.instance_type = env("PPERF_INSTANCE_TYPE");
  p.instance_id = env("PPERF_INSTANCE_ID");
  p.group = env("PPERF_HOST_GROUP");
  p.host_fingerprint = machine_fingerprint(host);
  p.host_id = env("PPERF_HOST_ID").value_or(p.host_fingerprint);
  return p;
}

}  // namespace pperf
