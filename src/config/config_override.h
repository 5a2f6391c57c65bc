#pragma once
// What a launched job's trainer changes in the config it was launched with before `pperf run`
// measures it (src/node): the prices it ran at, and each configuration's data from the job's
// data hosts instead of the workers an emulation spawns. Typed here, where the config's keys are
// known; applied to the config file's JSON, so the file `pperf run` reads is the launched one
// with these keys changed and nothing else.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pperf {

/// A configuration's data from data workers already running (execution.data).
struct DataEndpointsOverride {
  std::vector<std::string> endpoints;  // HOST:PORT each
  std::string tls_ca;                  // "" = plaintext; else the CA file the trainer trusts
};

struct ConfigOverride {
  /// "" = the config's own table; else pricing.table, each instance's type renamed by instance_type.
  std::string price_table;
  std::function<std::string(const std::string& type)> instance_type;
  /// Every instance group of every configuration on Spot (`market`).
  bool spot = false;
  /// Configuration name -> its data workers (spawn_local and the emulation's tls_ca dropped).
  std::map<std::string, DataEndpointsOverride> data;
};

/// `config` (a config file's JSON, as read) with `override` applied.
nlohmann::json apply_config_override(nlohmann::json config, const ConfigOverride& override);

}  // namespace pperf
