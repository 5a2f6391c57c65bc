#include "bench/config/plan.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "bench/core/input_error.h"

namespace pperf {

namespace {
void check_cpus(const std::vector<int>& cpus, const std::string& pointer, const HostCapacity& host,
                std::vector<Obstacle>& problems) {
  for (int cpu : cpus)
    if (cpu >= host.logical_cpus) {
      problems.push_back({pointer, "CPU " + std::to_string(cpu) + " does not exist here (" +
                                       std::to_string(host.logical_cpus) + " CPUs)"});
      return;
    }
}

std::vector<std::string> names_of_configurations(const Config& config) {
  std::vector<std::string> names;
  for (const auto& c : config.configurations) names.push_back(c.name);
  return names;
}
}  // namespace

HostCapacity HostCapacity::here() { return {static_cast<int64_t>(std::thread::hardware_concurrency())}; }

Result PlanItem::result_skeleton() const {
  Result r;
  r.workload = workload->name;
  r.preset = workload->preset;
  r.batch_size = workload->batch_size;
  r.samples_per_step = samples_per_step();
  r.configuration = configuration->name;
  r.baseline = configuration->baseline;
  return r;
}

bool Plan::runnable_here() const {
  return std::all_of(items.begin(), items.end(), [](const PlanItem& i) { return i.not_runnable_here.empty(); });
}

PlanItem plan_item(const Config& config, size_t workload_index, size_t configuration_index, const HostCapacity& host) {
  PlanItem item;
  item.workload_index = workload_index;
  item.configuration_index = configuration_index;
  item.workload = &config.workloads.at(workload_index);
  item.configuration = &config.configurations.at(configuration_index);
  const Configuration& c = *item.configuration;
  check_cpus(c.execution.cpus, c.pointer + "/execution/cpus", host, item.not_runnable_here);
  check_cpus(c.execution.data.spawn_local_cpus, c.pointer + "/execution/data/spawn_local/cpus", host,
             item.not_runnable_here);
  if (workload_index < config.path_params.size())
    for (const auto& p : config.path_params[workload_index])
      if (!std::filesystem::exists(p.path)) item.not_runnable_here.push_back({p.pointer, p.path + " does not exist here"});
  if (const std::string& ca = c.execution.data.tls_ca; !ca.empty() && !std::filesystem::is_regular_file(ca))
    item.not_runnable_here.push_back({c.pointer + "/execution/data/tls_ca", ca + " does not exist here"});
  return item;
}

Plan make_plan(const Config& config, const PlanFilter& filter, const HostCapacity& host) {
  const std::vector<std::string> configurations = names_of_configurations(config);
  for (const auto& name : filter.configurations)
    if (std::find(configurations.begin(), configurations.end(), name) == configurations.end())
      throw InputError("--only", "", "no configuration '" + name + "' in " + config.path + did_you_mean(name, configurations));
  if (!filter.workload.empty()) {
    std::vector<std::string> workloads;
    for (const auto& w : config.workloads) workloads.push_back(w.name);
    if (std::find(workloads.begin(), workloads.end(), filter.workload) == workloads.end())
      throw InputError("--workload", "", "no workload '" + filter.workload + "' in " + config.path +
                                            did_you_mean(filter.workload, workloads));
  }
  Plan plan;
  for (size_t w = 0; w < config.workloads.size(); ++w) {
    if (!filter.workload.empty() && config.workloads[w].name != filter.workload) continue;
    for (size_t c = 0; c < config.configurations.size(); ++c) {
      const auto& only = filter.configurations;
      if (!only.empty() && std::find(only.begin(), only.end(), config.configurations[c].name) == only.end()) continue;
      plan.items.push_back(plan_item(config, w, c, host));
    }
  }
  return plan;
}

std::vector<Result> given_results(const Plan& plan) {
  std::vector<Result> results;
  for (const auto& item : plan.items) {
    Result r = item.result_skeleton();
    const double t = item.configuration->step_time_ms.value();
    r.step = StepTimeEstimate{t, std::nullopt, t, std::nullopt};
    r.samples_per_s = static_cast<double>(r.samples_per_step) / (t / 1000);
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace pperf
