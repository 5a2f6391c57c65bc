#include "src/launch/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "src/config/plan.h"
#include "src/core/input_error.h"

namespace pperf {

namespace {

std::string at(const Configuration& c, const std::string& rest) { return c.pointer + rest; }

/// The trainer group of `c`, refusing what one job's one trainer cannot measure.
const InstanceGroup& trainer_of(const Config& config, const Configuration& c, const std::string& platform,
                                const InstanceTypeRule& rule) {
  const InstanceGroup* trainer = nullptr;
  for (size_t i = 0; i < c.instances.size(); ++i) {
    const InstanceGroup& g = c.instances[i];
    const std::string where = at(c, "/instances/" + std::to_string(i));
    if (const std::string why = rule(g.type); !why.empty())
      throw InputError(config.path, where + "/type", "configuration '" + c.name + "': " + why);
    if (!config.price_table.find(g.type))
      throw InputError(config.path, where + "/type",
                       "configuration '" + c.name + "': '" + g.type + "' is not in the price table " + config.price_table.name);
    if (g.role != "dnn") continue;
    if (trainer)
      throw InputError(config.path, where,
                       "configuration '" + c.name + "': a second trainer group; one " + platform + " job measures one trainer group");
    trainer = &g;
  }
  if (!trainer) throw InputError(config.path, at(c, "/instances"), "configuration '" + c.name + "': no trainer (role dnn) group");
  if (trainer->count != 1)
    throw InputError(config.path, at(c, "/instances"),
                     fmt::format("configuration '{}': a trainer group of {} instances; pperf launches a job whose one "
                                 "trainer measures (multi-instance data-parallel trainers: not yet, docs/launch.md)",
                                 c.name, trainer->count));
  if (const auto& d = c.execution.distributed; d && !d->spawn_local)
    throw InputError(config.path, at(c, "/execution/distributed"),
                     "configuration '" + c.name + "': ranks started by a launcher; in a launched job pperf starts them on the "
                     "trainer instance (\"spawn_local\")");
  return *trainer;
}

/// What `pperf run --native` would refuse on the trainer instance (its vCPUs and GPUs from the
/// price table), refused now rather than in a job that bills. Spawned data workers and their
/// TLS CA are replaced in the job (the data instances serve there).
void refuse_what_fails_there(const Config& config, const Configuration& c, const InstanceGroup& trainer) {
  const InstanceSpec* spec = config.price_table.find(trainer.type);
  HostCapacity host;
  host.logical_cpus = spec && spec->vcpus > 0 ? spec->vcpus : 1;
  host.cuda_devices = spec ? static_cast<int64_t>(std::ceil(spec->accelerators)) : 0;
  host.no_cuda_reason = trainer.type + " has no GPU";
  host.native = true;
  const size_t index = static_cast<size_t>(&c - config.configurations.data());
  for (size_t w = 0; w < config.workloads.size(); ++w) {
    for (const Obstacle& o : plan_item(config, w, index, host).not_runnable_here) {
      if (o.pointer == at(c, "/execution/data/spawn_local") || o.pointer == at(c, "/execution/data/tls_ca")) continue;
      throw InputError(config.path, o.pointer,
                       fmt::format("configuration '{}': `pperf run --native` would refuse it on {} ({} vCPUs, {} GPU(s)): {}",
                                   c.name, trainer.type, host.logical_cpus, host.cuda_devices, o.reason));
    }
  }
}

/// The data instances `c` streams from: (type, count), or count 0 when it preprocesses itself.
std::pair<std::string, int64_t> data_instances_of(const Config& config, const Configuration& c, const LaunchSelection& s) {
  int64_t count = 0;
  std::string type;
  for (const auto& g : c.instances) {
    if (g.role != "data") continue;
    if (!type.empty() && type != g.type)
      throw InputError(config.path, at(c, "/instances"),
                       "configuration '" + c.name + "': data groups of two instance types; one data group per configuration");
    type = g.type;
    count += g.count;
  }
  if (count == 0) return {type, 0};
  if (c.execution.data.mode != DataMode::service)
    throw InputError(config.path, at(c, "/execution/data/mode"),
                     "configuration '" + c.name + "': data instances but \"mode\": \"local\"; they would idle (\"service\")");
  if (c.execution.data.worker == DataWorker::python)
    throw InputError(config.path, at(c, "/execution/data/worker"),
                     "configuration '" + c.name + "': Python data workers on the data instances are not launched yet (the C++ pipeline's are)");
  if (config.sweep)
    throw InputError(config.path, "/sweep", "a sweep's points share the emulated data group; launch measures configurations written out");
  if (config.workloads.size() > 1 && s.workload.empty())
    throw InputError("--workload", "", "the data instances serve one workload; " + config.path + " has " +
                                           std::to_string(config.workloads.size()) + " (name one)");
  return {type, count};
}

}  // namespace

std::vector<LaunchJobPlan> launch_plan(const Config& config, const LaunchSelection& s, const std::string& platform,
                                       const InstanceTypeRule& rule) {
  if (config.priced_only)
    throw InputError(config.path, "/configurations",
                     "priced only (every configuration gives step_time_ms): nothing to measure on the instances; `pperf cost` prices it");
  if (!s.workload.empty() &&
      std::none_of(config.workloads.begin(), config.workloads.end(), [&](const auto& w) { return w.name == s.workload; }))
    throw InputError("--workload", "", "'" + s.workload + "' is not a workload of " + config.path);
  const std::vector<std::string> only = only_names(config, s.only);
  const int64_t workloads = s.workload.empty() ? static_cast<int64_t>(config.workloads.size()) : 1;
  std::vector<LaunchJobPlan> jobs;
  for (const Configuration& c : config.configurations) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    const InstanceGroup& trainer = trainer_of(config, c, platform, rule);
    refuse_what_fails_there(config, c, trainer);
    bool spot = s.spot;
    for (const auto& g : c.instances) spot = spot || g.market == Market::spot;
    const std::string key = trainer.type + (spot ? "-spot" : "");
    auto job = std::find_if(jobs.begin(), jobs.end(), [&](const LaunchJobPlan& j) { return j.key == key; });
    if (job == jobs.end()) {
      job = jobs.insert(jobs.end(), LaunchJobPlan{});
      job->key = key;
      job->trainer_type = trainer.type;
      job->spot = spot;
    }
    job->configurations.push_back(c.name);
    job->items += workloads;
    const auto data = data_instances_of(config, c, s);
    const std::string& data_type = data.first;  // a structured binding cannot be captured in C++17
    const int64_t data_count = data.second;
    if (data_count == 0) continue;
    auto g = std::find_if(job->data_groups.begin(), job->data_groups.end(), [&](const auto& d) { return d.type == data_type; });
    if (g == job->data_groups.end()) {
      const InstanceSpec* spec = config.price_table.find(data_type);
      g = job->data_groups.insert(job->data_groups.end(), LaunchDataGroup{data_type, 0, spec && spec->vcpus > 0 ? spec->vcpus : 1});
    }
    g->count = std::max(g->count, data_count);
    job->data_of[c.name] = {static_cast<size_t>(g - job->data_groups.begin()), data_count};
  }
  if (jobs.empty()) throw InputError("--only", "", "no configuration selected");
  return jobs;
}

std::string launch_config_reference(const Config& config) {
  namespace fs = std::filesystem;
  const fs::path path = fs::absolute(config.path).lexically_normal();
  try {
    if (path.parent_path() == fs::absolute(shipped_configs_dir()).lexically_normal()) return path.stem().string();
  } catch (const std::exception&) {
  }
  return path.filename().string();
}

int64_t job_runtime_s(const LaunchCommon& common, const Config& config, const LaunchJobPlan& job) {
  const int64_t runtime = common.max_runtime_s ? *common.max_runtime_s : launch_max_runtime_s(config.measure, job.items);
  if (runtime < 1) throw InputError("--max-runtime-s", "", "must be at least 1 s");
  return runtime;
}

int64_t launch_max_runtime_s(const MeasureSettings& measure, int64_t items) {
  return kJobStartAllowanceS + items * (static_cast<int64_t>(std::ceil(measure.max_seconds)) + kItemAllowanceS);
}

std::string launch_name(const std::string& text, size_t max_length, bool lower) {
  std::string out;
  for (char ch : text) {
    if (std::isalnum(static_cast<unsigned char>(ch)))
      out += lower ? static_cast<char>(std::tolower(static_cast<unsigned char>(ch))) : ch;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  if (out.size() > max_length) out.resize(max_length);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string launch_job_name(const std::string& base, const std::string& suffix, size_t max_length, size_t suffix_length,
                            bool lower) {
  const std::string tail = suffix.empty() ? "" : "-" + launch_name(suffix, suffix_length, lower);
  return launch_name(base, max_length - tail.size(), lower) + tail;
}

std::string join_names(const std::vector<std::string>& names, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? sep : "") + names[i];
  return out;
}

}  // namespace pperf

namespace pperf {

std::vector<std::string> node_entry_arguments(const Config& config, const LaunchJobPlan& job, const NodeEntryRole& role,
                                              const std::vector<std::string>& group_names, const std::string& workload,
                                              int64_t data_port, int64_t data_wait_s, int64_t max_runtime_s) {
  std::vector<std::string> a{"node-entry", "--platform", role.platform, "--job", role.job, "--group", role.group,
                             "--instance-type", role.instance_type, "--config", launch_config_reference(config),
                             "--config-sha256", config.sha256, "--data-port", std::to_string(data_port),
                             "--max-runtime-s", std::to_string(max_runtime_s)};
  if (!workload.empty()) a.insert(a.end(), {"--workload", workload});
  if (!role.tls_dir.empty()) a.insert(a.end(), {"--tls-dir", role.tls_dir});
  if (role.group == "trainer") {
    a.insert(a.end(), {"--configurations", join_names(job.configurations, ","), "--data-wait-s", std::to_string(data_wait_s),
                       "--out", role.out_dir});
    for (const auto& [configuration, use] : job.data_of)
      a.insert(a.end(), {"--data", configuration + "=" + group_names.at(use.first) + ":" + std::to_string(use.second)});
  } else {
    a.insert(a.end(), {"--workers", std::to_string(role.data_workers)});
  }
  return a;
}

std::string shell_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& word : argv) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || std::string("-_./:=,@%+").find(c) != std::string::npos;
    });
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += (out.empty() ? "" : " ") + (plain ? word : quoted + "'");
  }
  return out;
}

}  // namespace pperf
