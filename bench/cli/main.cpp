// pperf's entry point: dispatch to a command, and the one place exceptions become exit codes.
#include <malloc.h>
#include <stdlib.h>

#include <iostream>

#include "bench/cli/cli.h"
#include "bench/core/input_error.h"
#include "bench/env/build_info.h"
#include "bench/measure/torch_info.h"

namespace {

const char* kUsage =
    "usage: pperf <command> [options]\n"
    "commands:\n"
    "  run          measure each (workload x configuration) and price it\n"
    "  cost         price the step times given in a config (nothing is run)\n"
    "  validate     check a config, and say whether it can run on this host\n"
    "  list         list workloads or instances\n"
    "  data-worker  serve a config's preprocessed batches over gRPC (the data role)\n"
    "  compare      compare two results files: per-pair verdicts, exit 1 on a regression\n"
    "  history      record, list and show runs in the SQLite history\n"
    "  export       a results file as Google Benchmark JSON or CSV\n"
    "  report       a self-contained HTML report (and Markdown) of a run, with trends from the history\n"
    "  advise       rank configurations of results files by expected USD to train, On-Demand and Spot\n"
    "  prices       import price tables from providers' files (offline); diff two tables\n"
    "`pperf <command> --help` shows a command's options; `pperf --version` the version.\n";

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

int dispatch(const std::string& command, const std::vector<std::string>& args, const std::vector<std::string>& argv) {
  using namespace pperf::cli;
  if (command == "run") return command_run(args, argv);
  if (command == "cost") return command_cost(args, argv);
  if (command == "validate") return command_validate(args);
  if (command == "list") return command_list(args);
  if (command == "data-worker") return command_data_worker(args);
  if (command == "compare") return command_compare(args);
  if (command == "history") return command_history(args);
  if (command == "export") return command_export(args);
  if (command == "report") return command_report(args);
  if (command == "advise") return command_advise(args);
  if (command == "prices") return command_prices(args);
  if (command == "spot-drill-worker") return command_spot_drill_worker(args);
  if (command == "measure-item") return command_measure_item(args, argv);
  if (command == "--help" || command == "-h" || command == "help") return std::cout << kUsage, kExitOk;
  if (command == "--version")
    return std::cout << "pperf " << pperf::build_version() << " (" << pperf::build_git_sha() << "), built against "
                     << pperf::torch_build_summary() << "\n",
           kExitOk;
  throw pperf::InputError("pperf", "", "unknown command '" + command + "'" +
                                           pperf::did_you_mean(command, {"run", "cost", "validate", "list", "data-worker", "compare", "history", "export", "report", "advise", "prices"}));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace pperf::cli;
  keep_freed_memory_mapped();
  number_gpus_in_pci_order();
  const std::vector<std::string> argv_copy(argv, argv + argc);
  if (argc < 2) return std::cerr << kUsage, kExitBadInput;
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
