#include "src/config/config_override.h"

namespace pperf {

nlohmann::json apply_config_override(nlohmann::json doc, const ConfigOverride& o) {
  if (!o.price_table.empty()) {
    // A SageMaker-priced config on EC2 instances: EC2's table, each ml. type as its EC2 type.
    doc["pricing"]["table"] = o.price_table;
    for (auto& c : doc["configurations"])
      for (auto& g : c["instances"]) g["type"] = o.instance_type ? o.instance_type(g.value("type", "")) : g.value("type", "");
  }
  for (auto& c : doc["configurations"]) {
    if (o.spot)
      for (auto& g : c["instances"]) g["market"] = "spot";
    const auto hosts = o.data.find(c.value("name", ""));
    if (hosts == o.data.end()) continue;
    auto& data = c["execution"]["data"];
    data.erase("spawn_local");
    data.erase("tls_ca");  // the emulation's; the job's own when it has TLS files
    if (!hosts->second.tls_ca.empty()) data["tls_ca"] = hosts->second.tls_ca;
    data["endpoints"] = nlohmann::json::array();
    for (const auto& endpoint : hosts->second.endpoints) data["endpoints"].push_back(endpoint);
  }
  return doc;
}

}  // namespace pperf
