// `pperf measure-item` (internal): the child process the executor starts for one plan item.
// It measures the item here and writes a results file holding that one Result; exit 0 even
// when the item failed (the Result says so). Not for people: `pperf run` starts it.
#include <iostream>

#include "bench/cli/cli.h"
#include "bench/config/plan.h"
#include "bench/core/atomic_file.h"
#include "bench/core/input_error.h"
#include "bench/core/results_json.h"
#include "bench/env/process.h"
#include "bench/measure/executor.h"

namespace pperf::cli {

int command_measure_item(const std::vector<std::string>& args, const std::vector<std::string>& argv) {
  auto options = item_options("measure-item");
  options.add_options()(
      "out", po::value<std::string>()->required(), "where to write the one-result results file")(
      "native", "running on the named instances themselves")(
      "progress", "draw a progress line on stderr (a terminal)");
  Parsed p = parse("measure-item", options, args);
  if (p.help) return std::cout << options, kExitOk;
  const Config config = load_config(p.string("config"), builtin_workloads());
  const PlanItem item = item_from(p, config);

  ExecutorOptions executor;
  executor.native = p.has("native");
  executor.terminal_progress = p.has("progress");
  executor.pperf_binary = self_executable();
  const std::atomic<bool>& stop_requested = install_stop_handlers(false);
  RunReport report = report_header(config, "run", argv);
  Result r = measure_item_here(config, item, builtin_workloads(), executor, stop_requested);
  if (r.measurement) r.measurement->executor = "process";
  report.results.push_back(std::move(r));
  report.status = overall_status(report.results, stop_requested);
  write_file_atomically(p.string("out"), results_file_text(report));
  return kExitOk;
}

}  // namespace pperf::cli
