// pperf's entry point: dispatch to a command, and the one place exceptions become exit codes.
#include <malloc.h>
#include <stdlib.h>

#include <fmt/format.h>

#include <iostream>

#include "src/cli/cli.h"
#include "src/core/input_error.h"
#include "src/env/build_info.h"
#include "src/measure/torch_info.h"

namespace {

/// Batches and activations are large (MBs) and allocated every step. glibc would hand each one
/// fresh mmap'd pages and unmap them on free, so every step pays thousands of page faults
/// (costly under virtualisation). Keeping freed memory in the heap makes the buffers reused.
void keep_freed_memory_mapped() {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

/// CUDA numbers GPUs fastest first unless told otherwise; in PCI order cuda:N is the Nth GPU the
/// driver and nvidia-smi list, so a rank's GPU, its NUMA node and its utilization samples are
/// the same device. A user's own CUDA_DEVICE_ORDER is kept.
void number_gpus_in_pci_order() { setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0); }

using Args = std::vector<std::string>;

/// One row per command: dispatch, the usage text and did-you-mean all read this table, so a new
/// command is one row. Internal commands (started by pperf itself) have no summary and are not listed.
struct Command {
  const char* name;
  const char* summary;  // nullptr: internal
  int (*handler)(const Args& args, const Args& argv);
};

const Command kCommands[] = {
    {"run", "measure each (workload x configuration) and price it", pperf::cli::command_run},
    {"cost", "price the step times a config gives (nothing is run)", pperf::cli::command_cost},
    {"validate", "check a config, and whether it can run on this host",
     [](const Args& a, const Args&) { return pperf::cli::command_validate(a); }},
    {"list", "list workloads, instances or the shipped configs", [](const Args& a, const Args&) { return pperf::cli::command_list(a); }},
    {"launch", "jobs measuring a config on SageMaker, SkyPilot, Kubernetes",
     [](const Args& a, const Args&) { return pperf::cli::command_launch(a); }},
    {"sagemaker-entry", "a SageMaker job's entry point (`pperf launch sagemaker`)",
     [](const Args& a, const Args&) { return pperf::cli::command_sagemaker_entry(a); }},
    {"node-entry", "a SkyPilot task's or Kubernetes pod's entry (`pperf launch`)",
     [](const Args& a, const Args&) { return pperf::cli::command_node_entry(a); }},
    {"data-worker", "serve a config's preprocessed batches over gRPC (data role)",
     [](const Args& a, const Args&) { return pperf::cli::command_data_worker(a); }},
    {"compare", "compare two results: a verdict per pair, exit 1 on regression",
     [](const Args& a, const Args&) { return pperf::cli::command_compare(a); }},
    {"history", "record, list, show, copy runs in the history (SQLite, PG)",
     [](const Args& a, const Args&) { return pperf::cli::command_history(a); }},
    {"export", "a results file as text, CSV, HTML, Markdown or gbench JSON",
     [](const Args& a, const Args&) { return pperf::cli::command_export(a); }},
    {"report", "a run's HTML (and Markdown) report, trends from the history",
     [](const Args& a, const Args&) { return pperf::cli::command_report(a); }},
    {"decide", "one priced decision from runs measured on different hosts",
     [](const Args& a, const Args& argv) { return pperf::cli::command_decide(a, argv); }},
    {"advise", "rank configurations by USD to train, On-Demand and Spot",
     [](const Args& a, const Args&) { return pperf::cli::command_advise(a); }},
    {"prices", "import price tables from providers' files; diff two tables",
     [](const Args& a, const Args&) { return pperf::cli::command_prices(a); }},
    {"project", "one measurement across a catalog: cheapest cluster, knee",
     [](const Args& a, const Args&) { return pperf::cli::command_project(a); }},
    {"spot-drill-worker", nullptr, [](const Args& a, const Args&) { return pperf::cli::command_spot_drill_worker(a); }},
    {"measure-item", nullptr, pperf::cli::command_measure_item},
    {"probe-memory", nullptr, [](const Args& a, const Args&) { return pperf::cli::command_probe_memory(a); }},
};

std::string usage() {
  std::string out = "usage: pperf <command> [options]\ncommands:\n";
  for (const Command& c : kCommands)
    if (c.summary) out += fmt::format("  {:<15} {}\n", c.name, c.summary);
  return out + "`pperf help <command>` (or `pperf <command> --help`): its options.\n"
                "`pperf --version`: the version.\n";
}

int dispatch(const std::string& command, const Args& args, const Args& argv) {
  using namespace pperf::cli;
  using pperf::kExitBadInput, pperf::kExitOk, pperf::kExitRuntime;
  for (const Command& c : kCommands)
    if (command == c.name) return c.handler(args, argv);
  if (command == "--help" || command == "-h" || command == "help") {
    // `pperf help decide`: decide's own help, as `pperf decide --help`.
    if (!args.empty() && args[0] != "--help" && args[0] != "-h" && args[0] != "help") return dispatch(args[0], {"--help"}, argv);
    return std::cout << usage(), kExitOk;
  }
  if (command == "--version")
    return std::cout << "pperf " << pperf::build_version() << " (" << pperf::build_git_sha() << "), built against "
                     << pperf::torch_build_summary() << "\n",
           kExitOk;
  std::vector<std::string> listed;
  for (const Command& c : kCommands)
    if (c.summary) listed.push_back(c.name);
  throw pperf::InputError("pperf", "", "unknown command '" + command + "'" + pperf::did_you_mean(command, listed));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace pperf::cli;
  using pperf::kExitBadInput, pperf::kExitOk, pperf::kExitRuntime;
  keep_freed_memory_mapped();
  number_gpus_in_pci_order();
  const std::vector<std::string> argv_copy(argv, argv + argc);
  if (argc < 2) return std::cerr << usage(), kExitBadInput;
  const std::string command = argv[1];
  try {
    return dispatch(command, std::vector<std::string>(argv + 2, argv + argc), argv_copy);
  } catch (const pperf::InputError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "pperf " << command << ": " << e.what() << "\n";
    return kExitRuntime;
  }
}
