#include "src/measure/memory_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <cstdio>

#include "src/core/data_dir.h"
#include "src/core/workload_registry.h"
#include "src/env/host_info.h"
#include "src/core/process.h"
#include "src/measure/device.h"
#include "src/measure/executor.h"
#include "src/measure/memory_bound.h"
#include "workloads/workload.h"

namespace pperf {

namespace {
constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kProbeTimeoutS = 1800;  // two steps at a quarter of the batch

/// "1.00 GiB at batch 16, 1.60 GiB at batch 32".
std::string list_probes(const std::vector<std::pair<int64_t, int64_t>>& probes) {
  std::string out;
  for (const auto& [batch, bytes] : probes)
    out += fmt::format("{}{:.2f} GiB at batch {}", out.empty() ? "" : ", ", bytes / kGiB, batch);
  return out;
}

/// The probes' growth per sample carried linearly to `batch` (one probe: its figure).
int64_t extrapolate(const std::vector<std::pair<int64_t, int64_t>>& probes, int64_t batch) {
  if (probes.size() == 1) return probes.front().second;
  const auto [b1, p1] = probes[0];
  const auto [b2, p2] = probes[1];
  const double per_sample = std::max(0.0, static_cast<double>(p2 - p1) / static_cast<double>(b2 - b1));
  return p2 + static_cast<int64_t>(per_sample * static_cast<double>(batch - b2));
}
}  // namespace

std::string MemoryEstimate::describe() const {
  if (!probe_over_limit.empty()) return probe_over_limit;
  if (!not_probed.empty()) return "not probed: " + not_probed;
  std::string text = fmt::format("needs about {:.2f} GiB at batch {} ({}, each in a fresh process{})",
                                 predicted_peak_bytes / kGiB, batch_size, list_probes(probes), cached ? ", cached" : "");
  if (!device.empty())
    text += fmt::format("; on {} about {:.2f} GiB of its {:.2f} GiB{} (torch's reserved peak: {})", device,
                        predicted_device_bytes / kGiB, device_capacity_bytes / kGiB,
                        fits_device() ? "" : ", more than it has", list_probes(device_probes));
  return text;
}

std::string probe_line(const ProbeFigures& f) {
  return fmt::format("peak_rss_bytes {} device_reserved_bytes {} device_capacity_bytes {}", f.peak_rss_bytes,
                     f.device_reserved_bytes, f.device_capacity_bytes);
}

std::optional<ProbeFigures> parse_probe_line(const std::string& line) {
  ProbeFigures f;
  if (std::sscanf(line.c_str(), "peak_rss_bytes %ld device_reserved_bytes %ld device_capacity_bytes %ld",
                  &f.peak_rss_bytes, &f.device_reserved_bytes, &f.device_capacity_bytes) != 3)
    return std::nullopt;
  return f;
}

std::vector<int64_t> probe_batches(int64_t batch_size) {
  if (batch_size <= 8) return {batch_size};
  const int64_t low = std::max<int64_t>(1, batch_size / 8), high = std::max<int64_t>(low + 4, batch_size / 4);
  return {low, std::min(high, batch_size)};
}

ProbeFigures probe_item_memory(const WorkloadDescriptor& descriptor, WorkloadSpec spec, int64_t batch) {
  spec.batch_size = batch;
  const std::unique_ptr<Device> device = open_device(spec.device);
  std::shared_ptr<InputPipeline> pipeline = descriptor.make_pipeline(spec);
  std::unique_ptr<Workload> workload = descriptor.make_workload(spec);
  // Two steps: the optimizer's state exists from the first update on, beside the second
  // step's activations.
  for (int64_t index = 0; index < 2; ++index) workload->train_step(device->place(pipeline->make_batch(index)));
  device->synchronize();
  ProbeFigures f;
  f.peak_rss_bytes = peak_rss_bytes();
  if (const auto peaks = device->memory_peaks()) f.device_reserved_bytes = peaks->peak_reserved_bytes;
  if (const auto capacity = device->capacity_bytes()) f.device_capacity_bytes = *capacity;
  return f;
}

MemoryEstimate estimate_item_memory(const Config& config, const PlanItem& item, const std::string& pperf_binary,
                                    int64_t limit_bytes) {
  MemoryEstimate e;
  e.batch_size = item.workload->batch_size;
  e.limit_bytes = limit_bytes;
  if (const WorkloadDescriptor* d = builtin_workloads().find(item.workload->name); d && d->capabilities.steps_as_own_ranks) {
    e.not_probed = "its step runs in a process of its own (the bound holds that process too)";
    return e;
  }
  if (item.configuration->execution.distributed) {
    e.not_probed = "data-parallel ranks are bound as one group, not probed one by one";
    return e;
  }
  const std::string cache_path = cache_dir() + "/memory_probes.json";
  nlohmann::json cache = read_json_cache(cache_path);
  std::error_code ec;
  const auto binary_time = std::filesystem::last_write_time(pperf_binary, ec).time_since_epoch().count();
  const ExecutionSettings& exec = item.configuration->execution;
  if (exec.device.kind != DeviceChoice::Kind::cpu) e.device = exec.device.torch_device(0);
  e.cached = true;
  for (int64_t batch : probe_batches(e.batch_size)) {
    const std::string key = fmt::format("{} {}@{} {}/{} batch {} threads {}/{} {} on {}", hostname(), pperf_binary,
                                        binary_time, item.workload->name, item.workload->preset, batch, exec.threads,
                                        exec.interop_threads, item.workload->params.dump(), exec.device.name());
    if (cache.contains(key) && cache[key].is_string())
      if (const auto figures = parse_probe_line(cache[key].get<std::string>())) {
        e.probes.emplace_back(batch, figures->peak_rss_bytes);
        if (!e.device.empty()) {
          e.device_probes.emplace_back(batch, figures->device_reserved_bytes);
          e.device_capacity_bytes = figures->device_capacity_bytes;
        }
        continue;
      }
    e.cached = false;
    ItemMemoryBound bound(limit_bytes);
    SpawnOptions spawn;
    spawn.argv = item_argv(pperf_binary, "probe-memory", config, item);
    spawn.argv.insert(spawn.argv.end(), {"--batch", std::to_string(batch)});
    spawn.capture_stdout = true;
    spawn.death_signal = SIGKILL;
    bound.prepare(spawn);
    ChildProcess probe(spawn);
    bound.watch(probe);
    std::optional<std::string> line;
    while ((line = probe.read_line(kProbeTimeoutS)) && line->rfind("peak_rss_bytes ", 0) != 0) {
    }
    const bool timed_out = !line && !probe.wait(0);
    const int status = probe.stop(5);
    if (bound.over_limit()) {
      e.probe_over_limit = fmt::format("two steps at batch {} alone went {}", batch, bound.failure_reason());
      return e;
    }
    const std::optional<ProbeFigures> figures = line ? parse_probe_line(*line) : std::nullopt;
    if (!figures) {
      e.not_probed = timed_out ? fmt::format("the probe at batch {} did not finish within {:.0f} s", batch, kProbeTimeoutS)
                               : fmt::format("the probe at batch {} {} without a figure", batch, describe_wait_status(status));
      return e;
    }
    e.probes.emplace_back(batch, figures->peak_rss_bytes);
    if (!e.device.empty()) {
      e.device_probes.emplace_back(batch, figures->device_reserved_bytes);
      e.device_capacity_bytes = figures->device_capacity_bytes;
    }
    cache[key] = *line;
    write_json_cache(cache_path, cache);
  }
  e.predicted_peak_bytes = extrapolate(e.probes, e.batch_size);
  if (!e.device.empty()) e.predicted_device_bytes = extrapolate(e.device_probes, e.batch_size);
  return e;
}

std::vector<MemoryEstimate> estimate_plan_memory(const Config& config, const Plan& plan, const std::string& pperf_binary,
                                                 int64_t limit_bytes,
                                                 const std::function<void(const PlanItem&)>& probing) {
  std::vector<MemoryEstimate> out;
  // Items that differ only in what a memory probe cannot see share one estimate; a sweep point's
  // batch size or params (precision) it can.
  std::map<std::tuple<int64_t, int64_t, int64_t, DeviceChoice::Kind, bool, int64_t, std::string>, MemoryEstimate> probed;
  for (const PlanItem& item : plan.items) {
    const ExecutionSettings& exec = item.configuration->execution;
    const auto key = std::make_tuple(item.workload_index, exec.threads, exec.interop_threads, exec.device.kind,
                                     exec.distributed.has_value(), item.workload->batch_size, item.workload->params.dump());
    auto it = probed.find(key);
    if (it == probed.end()) {
      if (probing) probing(item);
      it = probed.emplace(key, estimate_item_memory(config, item, pperf_binary, limit_bytes)).first;
    }
    out.push_back(it->second);
  }
  return out;
}

}  // namespace pperf
