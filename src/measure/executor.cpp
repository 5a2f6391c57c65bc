#include "src/measure/executor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>

#include "src/core/distributed.h"
#include "src/core/process.h"
#include "src/core/results_json.h"
#include "src/measure/interleave.h"
#include "src/measure/memory_bound.h"

namespace pperf {

Result failed_result(Result r, const std::string& reason) {
  r.status = ResultStatus::failed;
  r.reason = reason;
  r.step.reset();
  r.spread.reset();
  r.samples_per_s.reset();
  r.data_wait_fraction.reset();
  r.measurement.reset();
  return r;
}
Result read_item_result(const std::string& path) {
  RunReport report = read_results_file(path);
  if (report.results.size() != 1) throw std::runtime_error("expected one result");
  return std::move(report.results.front());
}


std::vector<std::string> item_argv(const std::string& binary, const std::string& subcommand, const Config& config,
                                   const PlanItem& item) {
  std::vector<std::string> argv{binary, subcommand, "--config", config.path, "--config-sha256", config.sha256,
          "--workload-index", std::to_string(item.workload_index),
          "--configuration-index", std::to_string(item.configuration_index)};
  if (config.native) argv.push_back("--native");
  return argv;
}

std::vector<std::string> measure_item_argv(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                                           const std::string& out_path) {
  std::vector<std::string> argv = item_argv(options.process.pperf_binary, "measure-item", config, item);
  argv.insert(argv.end(), {"--out", out_path});
  if (options.process.native && !config.native) argv.push_back("--native");
  if (options.process.terminal_progress) argv.push_back("--progress");
  if (!options.process.trace_dir.empty()) argv.insert(argv.end(), {"--trace", options.process.trace_dir});
  if (const auto& rank = options.process.rank)
    for (const std::string& a :
         {std::string("--rank"), std::to_string(rank->rank), std::string("--world-size"), std::to_string(rank->world_size),
          std::string("--local-rank"), std::to_string(rank->local_rank), std::string("--store"),
          rank->store_host + ":" + std::to_string(rank->store_port), std::string("--store-prefix"), rank->store_prefix,
          std::string("--launcher"), to_string(rank->launcher)})
      argv.push_back(a);
  return argv;
}

namespace {
/// One measuring process of an item: its results file, the process, how it ended.
struct MeasuringProcess {
  std::string out;
  std::unique_ptr<ChildProcess> child;
  std::optional<int> status;
};

/// Why a rank's process that ended failed ("" when it did not): no result, an unreadable one, or
/// a failed one.
std::string rank_failure(const MeasuringProcess& c) {
  std::error_code ec;
  if (!std::filesystem::exists(c.out, ec)) return describe_wait_status(*c.status) + " without a result";
  try {
    const Result r = read_item_result(c.out);
    if (r.status == ResultStatus::failed) return r.reason;
  } catch (const std::exception& e) {
    return std::string("unreadable result: ") + e.what();
  }
  return "";
}

/// The item's Result once its processes ended: over the memory bound, a rank's failure (the
/// cause rather than a peer that lost it), or what the first process wrote.
Result item_result(Result skeleton, const MeasuringProcess& first, const std::vector<std::pair<int64_t, std::string>>& failures,
                   size_t ranks, const ItemMemoryBound& memory) {
  if (memory.over_limit()) return failed_result(std::move(skeleton), memory.failure_reason());
  if (!failures.empty()) {
    // The cause, rather than a peer that lost it: a rank whose failure is not a lost connection.
    auto lost_peer = [](const std::string& why) {
      return why.find("Gloo") != std::string::npos || why.find("gloo") != std::string::npos ||
             why.find("onnection") != std::string::npos;
    };
    auto cause = std::find_if(failures.begin(), failures.end(), [&](const auto& f) { return !lost_peer(f.second); });
    if (cause == failures.end()) cause = failures.begin();
    return failed_result(std::move(skeleton), fmt::format("rank {} of {}: {}", cause->first, ranks, cause->second));
  }
  std::error_code ec;
  if (!std::filesystem::exists(first.out, ec))
    return failed_result(std::move(skeleton),
                         "the measuring process " + describe_wait_status(first.status.value_or(0)) + " without a result");
  try {
    return read_item_result(first.out);
  } catch (const std::exception& e) {
    return failed_result(std::move(skeleton), std::string("unreadable result from the measuring process: ") + e.what());
  }
}

/// One measuring process per entry of `ranks` (nullopt: an item without ranks), its Result
/// read back from the first. A rank that fails or dies ends the others at once: the item is
/// `failed`, naming the first rank that did and why.
Result measure_in_children(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                           const std::atomic<bool>& stop_requested, const std::vector<std::optional<RankContext>>& ranks) {
  namespace fs = std::filesystem;
  static int sequence = 0;
  Result skeleton = item.result_skeleton();
  // Declared before the children: it outlives them, so its clean-up finds them ended.
  ItemMemoryBound memory(options.max_memory_bytes);
  std::vector<MeasuringProcess> children(ranks.size());
  // Ranks that failed, in the order seen: (rank, why).
  std::vector<std::pair<int64_t, std::string>> failures;
  std::optional<std::chrono::steady_clock::time_point> kill_at;
  bool ended_by_us = false;
  try {
    for (size_t i = 0; i < ranks.size(); ++i) {
      children[i].out = (fs::temp_directory_path() / fmt::format("pperf-item-{}-{}.json", getpid(), sequence++)).string();
      ExecutorOptions child_options = options;
      child_options.process.rank = ranks[i];
      SpawnOptions spawn;
      spawn.argv = measure_item_argv(config, item, child_options, children[i].out);
      if (ranks[i] && ranks[i]->rank != 0)
        spawn.argv.erase(std::remove(spawn.argv.begin(), spawn.argv.end(), "--progress"), spawn.argv.end());
      // If pperf dies, the measuring process dies at once (and its data workers with it).
      spawn.death_signal = SIGKILL;
      spawn.own_process_group = true;  // a terminal's Ctrl-C reaches pperf alone, which forwards it
      memory.prepare(spawn);
      children[i].child = std::make_unique<ChildProcess>(spawn);
      memory.watch(*children[i].child);
    }
    bool forwarded = false;
    for (size_t running = children.size(); running > 0;) {
      for (size_t i = 0; i < children.size(); ++i) {
        MeasuringProcess& c = children[i];
        if (c.status) continue;
        c.status = c.child->wait(children.size() == 1 ? 0.1 : 0.02);
        if (!c.status) continue;
        --running;
        if (children.size() == 1 || ended_by_us) continue;
        // A rank that ended: did it fail? Then the group cannot go on.
        const std::string why = rank_failure(c);
        if (why.empty()) continue;
        failures.emplace_back(ranks[i]->rank, why);
        // Its peers fail on their own within moments (their collectives lose it); a second
        // later the ones still running are ended.
        if (!kill_at) kill_at = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      }
      if (kill_at && !ended_by_us && std::chrono::steady_clock::now() >= *kill_at) {
        ended_by_us = true;
        for (auto& other : children)
          if (!other.status) other.child->signal(SIGKILL);
      }
      if (stop_requested && !forwarded) {
        for (auto& c : children)
          if (!c.status) c.child->signal(SIGINT);  // finish the current step, write what was measured
        forwarded = true;
      }
    }
  } catch (const std::exception& e) {
    return failed_result(std::move(skeleton), std::string("cannot start the measuring process: ") + e.what());
  }
  Result result = item_result(std::move(skeleton), children.front(), failures, ranks.size(), memory);
  std::error_code ec;
  for (const auto& c : children) fs::remove(c.out, ec);
  memory.record(result);
  return result;
}

/// The parent of a data-parallel item's ranks: all of them here (spawn_local, a store of its
/// own), or this process's one rank in a launcher's group.
Result measure_ranks(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                     const std::atomic<bool>& stop_requested) {
  static int item_sequence = 0;
  const DistributedSettings& d = *item.configuration->execution.distributed;
  const std::string prefix = fmt::format("item{}/", item_sequence++);
  if (const auto& launcher = options.process.launcher) {
    if (launcher->world_size != d.world_size)
      return failed_result(item.result_skeleton(),
                           fmt::format("{}/execution/distributed/world_size is {}, the launcher started {} ranks",
                                       item.configuration->pointer, d.world_size, launcher->world_size));
    RankContext rank = *launcher;
    rank.store_prefix = prefix;
    return measure_in_children(config, item, options, stop_requested, {rank});
  }
  RankContext host;
  host.world_size = d.world_size;
  std::unique_ptr<RunStore> store;
  try {
    store = std::make_unique<RunStore>(host, true, d.timeout_s);
  } catch (const std::exception& e) {
    return failed_result(item.result_skeleton(), e.what());
  }
  std::vector<std::optional<RankContext>> ranks;
  for (int64_t r = 0; r < d.world_size; ++r) {
    RankContext rank = host;
    rank.rank = r;
    rank.local_rank = r;
    rank.store_port = store->port();
    rank.store_prefix = prefix;
    ranks.push_back(rank);
  }
  return measure_in_children(config, item, options, stop_requested, ranks);
}
}  // namespace

Result measure_item_in_child(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                             const std::atomic<bool>& stop_requested) {
  if (item.configuration->execution.distributed) return measure_ranks(config, item, options, stop_requested);
  return measure_in_children(config, item, options, stop_requested, {std::nullopt});
}

namespace {
/// Items that take turns: a workload's configurations, two or more, none data-parallel, in a
/// run that neither asked for --sequential nor measures in this process or under a launcher.
bool takes_turns(const std::vector<const PlanItem*>& group, const ExecutorOptions& options) {
  if (group.size() < 2 || options.process.sequential || options.process.in_process || options.process.launcher) return false;
  return std::none_of(group.begin(), group.end(),
                      [](const PlanItem* item) { return item->configuration->execution.distributed.has_value(); });
}
}  // namespace

std::vector<Result> run_plan(const Config& config, const Plan& plan, const WorkloadRegistry& registry,
                             const ExecutorOptions& options, const std::atomic<bool>& stop_requested,
                             MeasureObserver& observer) {
  std::vector<Result> results;
  for (size_t i = 0; i < plan.items.size() && !stop_requested;) {
    // The items of one workload entry (same workload, preset and batch size) side by side.
    std::vector<const PlanItem*> group;
    for (size_t j = i; j < plan.items.size() && plan.items[j].workload_index == plan.items[i].workload_index; ++j)
      group.push_back(&plan.items[j]);
    if (takes_turns(group, options)) {
      for (Result& r : measure_interleaved(config, group, options, stop_requested, observer)) results.push_back(std::move(r));
      i += group.size();
    } else {
      const PlanItem& item = plan.items[i++];
      observer.setting_up(item);
      observer.started(item);
      if (options.process.launcher && options.process.launcher->rank != 0 && !item.configuration->execution.distributed) {
        // Under a launcher, an item without ranks is rank 0's alone.
        Result r = item.result_skeleton();
        r.status = ResultStatus::not_run;
        r.reason = "measured by rank 0";
        results.push_back(std::move(r));
      } else {
        results.push_back(options.process.in_process && !item.configuration->execution.distributed
                              ? measure_item_here(config, item, registry, options, stop_requested)
                              : measure_item_in_child(config, item, options, stop_requested));
      }
    }
    fill_scaling_efficiency(results);
    observer.results(results);
  }
  return results;
}

}  // namespace pperf
