// `pperf measure-item` (internal): the child process the executor starts for one plan item.
// It measures the item here and writes a results file holding that one Result; exit 0 even
// when the item failed (the Result says so). Not for people: `pperf run` starts it.
#include <iostream>

#include "src/cli/cli.h"
#include "src/config/plan.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "src/core/process.h"
#include "src/measure/executor.h"
#include "src/measure/interleave.h"
#include "src/measure/memory_probe.h"
#include "src/measure/torch_info.h"

namespace pperf::cli {

int command_measure_item(const std::vector<std::string>& args, const std::vector<std::string>& argv) {
  auto options = item_options("measure-item");
  options.add_options()(
      "out", po::value<std::string>()->required(), "where to write the one-result results file")(
      "progress", "draw a progress line on stderr (a terminal)")(
      "trace", po::value<std::string>(), "after measuring, trace a few more steps into this folder")(
      "turns", "take turns with the run's other configurations: orders on stdin, each round's step times on stdout")(
      "rank", po::value<int64_t>(), "data-parallel: this process's rank")(
      "world-size", po::value<int64_t>(), "data-parallel: ranks in the group")(
      "local-rank", po::value<int64_t>()->default_value(0), "data-parallel: rank on this host")(
      "store", po::value<std::string>(), "data-parallel: HOST:PORT of the group's rendezvous store")(
      "store-prefix", po::value<std::string>()->default_value(""), "data-parallel: this item's keys in the store")(
      "launcher", po::value<std::string>()->default_value("spawn_local"), "data-parallel: who started the ranks");
  Parsed p = parse("measure-item", options, args);
  if (p.help) return std::cout << options, kExitOk;
  const Config config = load_config(p.string("config"), builtin_workloads(), p.has("native"));
  const PlanItem item = item_from(p, config);

  ExecutorOptions executor;
  executor.process.native = p.has("native");
  executor.process.terminal_progress = p.has("progress");
  executor.process.pperf_binary = self_executable();
  if (p.has("trace")) executor.process.trace_dir = p.string("trace");
  TurnTaking turns;
  if (p.has("turns")) {
    turns = turns_over_stdio();
    executor.process.turns = &turns;
  }
  if (p.has("rank")) {
    RankContext rank;
    rank.rank = p.vars["rank"].as<int64_t>();
    if (!p.has("world-size") || !p.has("store")) throw InputError("--rank", "", "needs --world-size and --store");
    rank.world_size = p.vars["world-size"].as<int64_t>();
    if (rank.world_size < 1 || rank.rank < 0 || rank.rank >= rank.world_size)
      throw InputError("--rank", "", "must be in [0, --world-size)");
    rank.local_rank = p.vars["local-rank"].as<int64_t>();
    const std::string store = p.string("store");
    const size_t colon = store.rfind(':');
    if (colon == std::string::npos) throw InputError("--store", "", "expected HOST:PORT, got '" + store + "'");
    rank.store_host = store.substr(0, colon);
    try {
      rank.store_port = std::stoi(store.substr(colon + 1));
    } catch (const std::exception&) {
      throw InputError("--store", "", "expected HOST:PORT, got '" + store + "'");
    }
    rank.store_prefix = p.string("store-prefix");
    const auto launcher = parse_enum<Launcher>(p.string("launcher"));
    if (!launcher) throw InputError("--launcher", "", "expected one of spawn_local, env, slurm, got '" + p.string("launcher") + "'");
    rank.launcher = *launcher;
    executor.process.rank = rank;
  }
  const std::atomic<bool>& stop_requested = install_stop_handlers(false);
  RunReport report = report_header(config, "run", argv);
  Result r = measure_item_here(config, item, builtin_workloads(), executor, stop_requested);
  if (r.measurement) r.measurement->executor = "process";
  report.results.push_back(std::move(r));
  report.status = overall_status(report.results, stop_requested);
  write_file_atomically(p.string("out"), results_file_text(report));
  return kExitOk;
}

// `pperf probe-memory` (internal): two training steps of the item at --batch in this fresh
// process, then its figures on stdout (probe_line). `pperf run` and `validate` start it
// (src/measure/memory_probe.h).
int command_probe_memory(const std::vector<std::string>& args) {
  auto options = item_options("probe-memory");
  options.add_options()("batch", po::value<int64_t>()->required(), "the batch size to probe");
  Parsed p = parse("probe-memory", options, args);
  if (p.help) return std::cout << options, kExitOk;
  const Config config = load_config(p.string("config"), builtin_workloads(), p.has("native"));
  const PlanItem item = item_from(p, config);
  const int64_t batch = p.vars["batch"].as<int64_t>();
  if (batch < 1) throw InputError("--batch", "", "must be at least 1");
  const WorkloadDescriptor* descriptor = builtin_workloads().find(item.workload->name);
  if (!descriptor) throw InputError(config.path, "/workloads", "workload '" + item.workload->name + "' is not compiled into this pperf");
  const ExecutionSettings& exec = item.configuration->execution;
  pin_process_to_cpus(exec.cpus);  // the threads the item will have (each keeps buffers of its own)
  apply_threads(exec.threads, exec.interop_threads);
  WorkloadSpec spec = *item.workload;
  spec.device = exec.device.torch_device(0);  // a GPU item is probed on its (first) GPU
  std::cout << probe_line(probe_item_memory(*descriptor, spec, batch)) << std::endl;
  return kExitOk;
}

}  // namespace pperf::cli
