#include "src/env/placement.h"

#include <cstdlib>
#include <fstream>

#include "src/core/crypto.h"
#include "src/core/node_contract.h"

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
  return placement_from_environment(env, machine_fingerprint(host));
}

}  // namespace pperf
