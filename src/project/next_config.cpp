#include "src/project/next_config.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace pperf::project {

namespace {
nlohmann::json groups_json(const Candidate& c) {
  nlohmann::json g = nlohmann::json::array();
  g.push_back({{"type", c.trainer_type}, {"count", c.trainer_count}, {"role", "dnn"}});
  if (c.data_count > 0) g.push_back({{"type", c.data_type}, {"count", c.data_count}, {"role", "data"}});
  return g;
}

/// The groups as a comparable list of (type, count, role), counts defaulting to 1.
std::vector<std::tuple<std::string, int64_t, std::string>> groups_of(const nlohmann::json& instances) {
  std::vector<std::tuple<std::string, int64_t, std::string>> out;
  for (const auto& g : instances)
    out.emplace_back(g.value("type", ""), g.value("count", int64_t{1}), g.value("role", "dnn"));
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

nlohmann::json service_execution(const nlohmann::json& baseline_execution, int64_t processes, int64_t host_cpus) {
  nlohmann::json e = baseline_execution.is_object() ? baseline_execution : nlohmann::json::object();
  const nlohmann::json local = e.contains("data") && e["data"].is_object() ? e["data"] : nlohmann::json::object();
  std::set<int> trainer;
  if (e.contains("cpus") && e["cpus"].is_array())
    for (const auto& c : e["cpus"]) trainer.insert(c.get<int>());
  if (trainer.empty() || static_cast<int64_t>(trainer.size()) >= host_cpus) trainer = {0};
  nlohmann::json data_cpus = nlohmann::json::array();
  for (int c = 0; c < host_cpus; ++c)
    if (!trainer.count(c)) data_cpus.push_back(c);
  if (data_cpus.empty()) data_cpus.push_back(0);  // a 1-CPU host: the workers share it
  e["cpus"] = nlohmann::json(std::vector<int>(trainer.begin(), trainer.end()));
  nlohmann::json data = {{"mode", "service"},
                         {"prefetch_batches", local.value("prefetch_batches", int64_t{4})},
                         {"spawn_local", {{"processes", std::max<int64_t>(1, processes)}, {"workers", 1}, {"cpus", data_cpus}}}};
  for (const char* key : {"worker", "dataset", "dataloader", "python_path", "dataset_kwargs"})  // a Python worker stays one
    if (local.contains(key)) data[key] = local[key];
  e["data"] = data;
  e.erase("distributed");  // data-parallel ranks read the local loader only: one rank here
  return e;
}

nlohmann::json next_config(const NextConfigInputs& in, const Candidate& cheapest, const Candidate* with_data) {
  nlohmann::json next = in.config;
  next.erase("$schema");
  next.erase("sweep");  // a confirmation measures the configurations named, not the sweep's points
  next["name"] = in.name + "-next";
  next["description"] = "Written by pperf project: the cheapest projected cluster of " + in.name + ", to measure and confirm.";
  next["pricing"]["table"] = in.table;
  next["pricing"]["region"] = in.region;
  for (const auto& [pointer, path] : in.paths) next[nlohmann::json::json_pointer(pointer)] = path;
  // Paths the config reads relative to its own folder, made absolute: the next config lies elsewhere.
  const auto absolute = [&](nlohmann::json& entry) {
    if (entry.is_string() && !std::filesystem::path(entry.get<std::string>()).is_absolute())
      entry = (std::filesystem::path(in.config_dir) / entry.get<std::string>()).lexically_normal().string();
  };
  if (!in.config_dir.empty() && next.contains("configurations"))
    for (auto& c : next["configurations"]) {
      if (!c.contains("execution") || !c["execution"].contains("data")) continue;
      nlohmann::json& data = c["execution"]["data"];
      if (data.contains("python_path"))
        for (auto& entry : data["python_path"]) absolute(entry);
      if (data.contains("tls_ca")) absolute(data["tls_ca"]);
    }
  nlohmann::json configurations = nlohmann::json::array();
  if (in.priced_only) {
    configurations.push_back({{"name", "projected-cheapest"}, {"baseline", true}, {"instances", groups_json(cheapest)}});
    next["configurations"] = configurations;
    return next;
  }
  const nlohmann::json all = next["configurations"];  // with the paths made absolute
  nlohmann::json base = all.at(in.reference);
  base["baseline"] = true;  // a config of one configuration may leave it implied
  configurations.push_back(base);
  const nlohmann::json base_execution = base.value("execution", nlohmann::json::object());
  const auto add = [&](const std::string& name, const Candidate& c) {
    nlohmann::json chosen = {{"name", name}, {"instances", groups_json(c)}};
    if (groups_of(chosen["instances"]) == groups_of(base.value("instances", nlohmann::json::array()))) return;
    if (c.data_count == 0) {
      if (base.contains("execution")) chosen["execution"] = base_execution;
    } else if (in.data_configuration && all.at(*in.data_configuration).contains("execution")) {
      chosen["execution"] = all.at(*in.data_configuration)["execution"];
    } else {
      chosen["execution"] = service_execution(base_execution, c.data_count, in.host_cpus);
      if (base_execution.contains("distributed"))
        next["description"] = next["description"].get<std::string>() + " " + name +
                              " trains one rank: pperf's data service does not feed data-parallel ranks.";
    }
    configurations.push_back(chosen);
  };
  add("projected-cheapest", cheapest);
  if (cheapest.data_count == 0 && with_data) add("projected-with-data", *with_data);
  next["configurations"] = configurations;
  return next;
}

}  // namespace pperf::project
