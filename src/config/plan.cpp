#include "src/config/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "src/core/input_error.h"

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

namespace {
/// NVIDIA GPUs the driver lists, narrowed by CUDA_VISIBLE_DEVICES as CUDA itself does. Read from
/// /proc so the plan needs no CUDA runtime; the measuring process asks libtorch again.
[[maybe_unused]] int64_t visible_nvidia_gpus() {
  std::error_code error;
  int64_t present = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error))
    ++present;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!visible) return present;
  const std::string list = visible;
  const int64_t listed = list.empty() ? 0 : 1 + std::count(list.begin(), list.end(), ',');
  return std::min(present, listed);
}
}  // namespace

HostCapacity HostCapacity::here() {
  HostCapacity host;
  host.logical_cpus = static_cast<int64_t>(std::thread::hardware_concurrency());
#if PPERF_WITH_CUDA
  host.cuda_devices = visible_nvidia_gpus();
  if (host.cuda_devices == 0) host.no_cuda_reason = "no NVIDIA GPU visible on this host (/proc/driver/nvidia/gpus, CUDA_VISIBLE_DEVICES)";
#else
  host.no_cuda_reason =
      "this pperf is built against a CPU-only libtorch (Debian's); rebuild against a CUDA libtorch (docs/gpu.md)";
#endif
  return host;
}

namespace {
void check_device(const DeviceChoice& device, const std::string& pointer, const HostCapacity& host,
                  std::vector<Obstacle>& problems) {
  if (device.kind == DeviceChoice::Kind::cpu) return;
  if (host.cuda_devices == 0) {
    problems.push_back({pointer, "device '" + device.name() + "': " + host.no_cuda_reason});
  } else if (device.kind == DeviceChoice::Kind::gpu && device.index >= host.cuda_devices) {
    problems.push_back({pointer, "device '" + device.name() + "': this host has " + std::to_string(host.cuda_devices) +
                                     " GPU" + (host.cuda_devices == 1 ? "" : "s")});
  }
}

/// Ranks: a launcher's group must be the size the configuration asks for; ranks spawned here
/// need one GPU each here. And --native with priced GPUs must train on them.
void check_ranks(const Configuration& c, const WorkloadSpec& workload, const HostCapacity& host,
                 std::vector<Obstacle>& problems) {
  const std::optional<DistributedSettings>& d = c.execution.distributed;
  const std::string device_pointer = c.pointer + "/execution/device";
  const bool rank_per_gpu = c.execution.device.kind == DeviceChoice::Kind::every_gpu;
  if (d && host.launcher_world_size && *host.launcher_world_size != d->world_size)
    problems.push_back({c.pointer + "/execution" + (rank_per_gpu ? "/device" : "/distributed/world_size"),
                        "the configuration runs " + std::to_string(d->world_size) + " ranks" +
                            (rank_per_gpu ? " (one per priced GPU)" : "") + ", the launcher started " +
                            std::to_string(*host.launcher_world_size)});
  if (rank_per_gpu && host.cuda_devices > 0 && d && !host.launcher_world_size &&
      d->world_size > host.cuda_devices)
    problems.push_back({device_pointer, "one rank per GPU: " + std::to_string(d->world_size) + " ranks, this host has " +
                                            std::to_string(host.cuda_devices) +
                                            " GPUs (start them with a launcher across the instances: docs/gpu.md)"});
  // A step that drives its own device (python_step) may use the GPUs whatever pperf's device is.
  if (host.native && c.priced_gpus > 0 && c.execution.device.kind == DeviceChoice::Kind::cpu && !workload.owns_device)
    problems.push_back({device_pointer, "--native: the priced trainer instances have " + std::to_string(c.priced_gpus) +
                                            " GPU(s), but this configuration trains on the CPU, which would price "
                                            "their GPUs for a CPU's step time; set \"device\": \"cuda\""});
}
}  // namespace

/// Batches handed over in memory (pperf's local loader) and a Python dataset's tensors: float32.
constexpr const char* kInMemoryWire = "float32";

DataPath data_path_of(const Config& config, size_t workload_index, const Configuration& configuration, bool native) {
  const DataSettings& data = configuration.execution.data;
  DataPath path;
  if (!data.wire.empty()) path.wire = data.wire;
  else if (data.mode == DataMode::service && data.worker == DataWorker::pperf && workload_index < config.default_wires.size())
    path.wire = config.default_wires[workload_index];
  else path.wire = kInMemoryWire;
  if (data.link_gbps && !native)
    path.link = EmulatedLink{*data.link_gbps, data.link_from_table ? "price table" : "config", data.link_scale};
  return path;
}

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
  if (c.workload_batch_size || !c.workload_params.empty()) {
    auto spec = std::make_shared<WorkloadSpec>(*item.workload);
    if (c.workload_batch_size) spec->batch_size = *c.workload_batch_size;
    for (const auto& [key, value] : c.workload_params.items()) spec->params[key] = value;
    item.own_workload = spec;
    item.workload = spec.get();
  }
  if (c.execution.distributed) item.ranks = c.execution.distributed->world_size;
  item.data_path = data_path_of(config, workload_index, c, host.native);
  if (const auto& link = item.data_path.link; link && !host.link_obstacle.empty())
    item.not_runnable_here.push_back({c.pointer + "/execution/data/link_gbps",
                                      fmt::format("cannot emulate the {:g} Gbit/s link: {}", link->gbps, host.link_obstacle), true});
  check_cpus(c.execution.cpus, c.pointer + "/execution/cpus", host, item.not_runnable_here);
  check_device(c.execution.device, c.pointer + "/execution/device", host, item.not_runnable_here);
  check_ranks(c, *item.workload, host, item.not_runnable_here);
  if (c.execution.device.kind == DeviceChoice::Kind::gpu && c.priced_gpus > 1)
    item.notes.push_back(fmt::format("trains 1 of {} priced GPUs ({}): the cost per sample prices all {} for one GPU's "
                                     "throughput; \"device\": \"cuda\" trains one rank per priced GPU",
                                     c.priced_gpus, c.execution.device.name(), c.priced_gpus));
  check_cpus(c.execution.data.spawn_local_cpus, c.pointer + "/execution/data/spawn_local/cpus", host,
             item.not_runnable_here);
  if (host.native && c.execution.data.mode == DataMode::service && c.execution.data.spawn_local_processes > 0)
    item.not_runnable_here.push_back(
        {c.pointer + "/execution/data/spawn_local",
         "emulation only: under --native the data instances serve the batches; give their endpoints "
         "(execution.data.endpoints), as `pperf launch` does"});
  if (workload_index < config.path_params.size())
    for (const auto& p : config.path_params[workload_index])
      if (!std::filesystem::exists(p.path)) item.not_runnable_here.push_back({p.pointer, p.path + " does not exist here"});
  if (const std::string& ca = c.execution.data.tls_ca; !ca.empty() && !std::filesystem::is_regular_file(ca))
    item.not_runnable_here.push_back({c.pointer + "/execution/data/tls_ca", ca + " does not exist here"});
  // A sweep point's knob is refused where the sweep gives its value.
  for (Obstacle& o : item.not_runnable_here)
    for (const auto& [path, pointer] : c.sweep_pointers)
      if (o.pointer == c.pointer + path) o.pointer = pointer;
  return item;
}

std::vector<std::string> only_names(const Config& config, const std::vector<std::string>& pieces) {
  const std::vector<std::string> configurations = names_of_configurations(config);
  auto known = [&](const std::string& name) {
    return std::find(configurations.begin(), configurations.end(), name) != configurations.end();
  };
  std::vector<std::string> names;
  for (size_t i = 0; i < pieces.size();) {
    std::string joined, found;
    size_t next = i;
    for (size_t j = i; j < pieces.size(); ++j) {
      joined += (j > i ? "," : "") + pieces[j];
      if (known(joined)) found = joined, next = j + 1;
    }
    if (next == i) {
      // Unknown: a sweep point as written (its key=value pieces) or the one name.
      std::string name = pieces[i];
      for (size_t j = i + 1; name.find('=') != std::string::npos && j < pieces.size() && pieces[j].find('=') != std::string::npos &&
                             !known(pieces[j]);
           ++j)
        name += "," + pieces[j];
      throw InputError("--only", "", "no configuration '" + name + "' in " + config.path + did_you_mean(name, configurations));
    }
    names.push_back(found);
    i = next;
  }
  return names;
}

Plan make_plan(const Config& config, const PlanFilter& filter, const HostCapacity& host) {
  const std::vector<std::string> only = only_names(config, filter.configurations);
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
