// `pperf run`: plan, measure (a process per item), price, report.
#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>
#include <set>
#include <iostream>

#include "bench/cli/cli.h"
#include "bench/core/atomic_file.h"
#include "bench/config/plan.h"
#include "bench/core/input_error.h"
#include "bench/env/host_info.h"
#include "bench/env/process.h"
#include "bench/history/history.h"
#include "bench/measure/data_sources.h"
#include "bench/measure/distributed.h"
#include "bench/measure/executor.h"
#include "bench/measure/spot_drill.h"
#include "bench/measure/peak_flops.h"
#include "pricing/pricing_stage.h"
#include "reports/console.h"

namespace pperf::cli {

namespace {
/// `--spot-drill`: a drill per measured Spot result (a failed drill is an event, not a failure).
void run_spot_drills(const Config& config, const Plan& plan, std::vector<Result>& results, bool quiet,
                     const std::atomic<bool>& stop_requested) {
  DrillOptions drill;
  drill.pperf_binary = self_executable();
  for (size_t i = 0; i < results.size() && i < plan.items.size() && !stop_requested; ++i) {
    Result& r = results[i];
    const PlanItem& item = plan.items[i];
    if (!item.configuration->spot || r.status != ResultStatus::ok || r.configuration != item.configuration->name) continue;
    if (!quiet) std::cerr << fmt::format("[{}] spot drill on {}: kill at step {}, restart\n", utc_timestamp(), r.configuration, drill.kill_at_step);
    try {
      r.spot_drill = run_spot_drill(config, item, r, drill);
    } catch (const std::exception& e) {
      r.events.push_back(std::string("spot drill failed: ") + e.what());
    }
  }
}
}  // namespace

int command_run(const std::vector<std::string>& args, const std::vector<std::string>& argv) {
  auto options = config_options("run");
  add_output_options(options);
  add_history_option(options);
  add_memory_option(options);
  options.add_options()("only", po::value<std::string>(), "comma-separated configuration names to run")(
      "workload", po::value<std::string>(), "run only this workload of the config")(
      "native", "running on the named instances themselves: results say emulated: false")(
      "in-process", "measure every item in this process instead of a process per item (debugging)")(
      "sequential", "measure each configuration to its end before the next, instead of in alternating rounds")(

      "spot-drill", "for each Spot configuration: SIGKILL its training mid-run, restart from the last checkpoint, "
                    "record the lost time measured beside the model's prediction")(
      "require-converged", "exit 1 when a result stopped on max_steps/max_seconds before its CI reached target_rel_ci");
  Parsed p = parse("run", options, join_optional_value(args, "--history"));
  if (p.help) return std::cout << options, kExitOk;

  const Config config = load_config(p.string("config"), builtin_workloads());
  if (!p.has("in-process") && !std::filesystem::is_regular_file(config.path))
    throw InputError("--config", "", config.path + " is not a regular file: each measuring process re-reads it (or use --in-process)");
  if (config.priced_only)
    throw InputError(config.path, "/configurations", "every configuration gives step_time_ms (nothing to measure): use `pperf cost`");
  PlanFilter filter;
  if (p.has("only")) filter.configurations = split_commas(p.string("only"));
  if (p.has("workload")) filter.workload = p.string("workload");
  const Plan plan = make_plan(config, filter, host_capacity(p.has("native")));
  for (const auto& item : plan.items)
    for (const auto& obstacle : item.not_runnable_here)
      throw InputError(config.path, obstacle.pointer, "not runnable on this host: " + obstacle.reason);
  // A Python dataset that does not import, whose factory raises or whose samples do not fit the
  // model is a configuration mistake: refused before anything is measured, naming the module.
  for (const auto& item : plan.items) {
    const DataSettings& data = item.configuration->execution.data;
    // Workers already running elsewhere (endpoints) are checked at their handshake instead.
    if (data.worker != DataWorker::python || (data.mode == DataMode::service && data.spawn_local_processes == 0)) continue;
    const WorkloadDescriptor* descriptor = builtin_workloads().find(item.workload->name);
    const std::vector<TensorDecl> expected =
        descriptor && descriptor->batch_layout ? descriptor->batch_layout(*item.workload) : std::vector<TensorDecl>{};
    if (const std::string why = check_python_dataset(self_executable(), *item.workload, data, expected); !why.empty())
      throw InputError(config.path,
                       item.configuration->pointer + "/execution/data/" + (data.dataset_is_dataloader ? "dataloader" : "dataset"),
                       why);
  }
  // A workload's own preflight (python_step: its module imports), once per workload entry,
  // before anything is measured.
  std::set<int64_t> checked;
  for (const auto& item : plan.items) {
    const WorkloadDescriptor* descriptor = builtin_workloads().find(item.workload->name);
    if (!descriptor || !descriptor->preflight || !checked.insert(item.workload_index).second) continue;
    try {
      descriptor->preflight(*item.workload);
    } catch (const InputError& e) {
      // The param's own complaint ("'python9' is not on PATH"), re-anchored in the config file.
      const std::string prefix = e.where() + ": " + e.pointer() + ": ";
      const std::string what = e.what();
      throw InputError(config.path, fmt::format("/workloads/{}/{}", item.workload_index, e.pointer()),
                       what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what);
    } catch (const std::exception& e) {
      throw InputError(config.path, fmt::format("/workloads/{}", item.workload_index), e.what());
    }
  }
  ExecutorOptions executor;
  executor.native = p.has("native");
  executor.in_process = p.has("in-process");
  executor.sequential = p.has("sequential");
  executor.max_memory_bytes = max_memory_bytes(p, config);
  executor.pperf_binary = self_executable();
  // Started by a launcher (torchrun, PyTorchJob, SageMaker, srun): every rank runs this same
  // config; rank 0 serves the group's store, measures and writes the outputs; the other ranks
  // write nothing and exit with rank 0's code.
  executor.launcher = launcher_from_env();
  // A batch that cannot fit is refused before anything runs (the bound would end it; this says
  // so before the wait). Items measured in this process are not bound, nor probed.
  if (!executor.in_process && (!executor.launcher || executor.launcher->rank == 0))
    check_memory(config, plan, executor.max_memory_bytes);
  std::unique_ptr<RunStore> launcher_store;
  if (executor.launcher) {
    double timeout_s = 300;
    for (const auto& item : plan.items)
      if (item.configuration->execution.distributed) timeout_s = item.configuration->execution.distributed->timeout_s;
    launcher_store = std::make_unique<RunStore>(*executor.launcher, executor.launcher->rank == 0, timeout_s);
    if (executor.launcher->rank != 0) {
      const std::atomic<bool>& stop = install_stop_handlers(false);
      run_plan(config, plan, builtin_workloads(), executor, stop, [](const PlanItem&) {}, [](const std::vector<Result>&) {});
      return launcher_store->wait_exit_code();
    }
  }
  const Outputs out = outputs_from(p, config);
  // On a terminal each item draws a self-updating progress line; in CI, a line per item start
  // and end; with --quiet, nothing.
  executor.terminal_progress = !out.quiet && ::isatty(STDERR_FILENO);
  const std::string history = history_path_from(p);
  if (!history.empty()) History(history, History::Mode::create);  // a bad database fails before the run

  warn_if_prices_stale(config, out.quiet);
  RunReport report = report_header(config, "run", argv);
  // MFU's denominator: this host's peak GEMM rate, measured once per host fingerprint.
  report.host["peak_gflops"] = cached_peak_gflops(host_fingerprint(report.host), default_peak_cache_path());
  // Until the run ends, the file on disk says "interrupted": a run killed at any point
  // leaves valid JSON with what it had measured.
  write_outputs(report, out);
  const std::atomic<bool>& stop_requested = install_stop_handlers(!out.quiet);
  const PricingInputs pricing = pricing_inputs(config);
  for (const auto& c : config.configurations)
    if (c.baseline) executor.price_ratio = price_ratios(pricing, c.name);
  executor.decision = pricing.decision;
  size_t done = 0, started = 0;
  auto on_start = [&](const PlanItem& item) {
    ++started;
    if (!out.quiet && !executor.terminal_progress)
      std::cerr << item_started_line(utc_timestamp(), item.workload->name, item.workload->preset, item.configuration->name,
                                     started, plan.items.size(), terminal_columns(STDERR_FILENO));
  };
  report.results = run_plan(config, plan, builtin_workloads(), executor, stop_requested, on_start,
                            [&](const std::vector<Result>& so_far) {
    // Configurations that took turns finish together.
    for (; done < so_far.size(); ++done)
      if (!out.quiet) std::cerr << item_finished_line(utc_timestamp(), so_far[done], terminal_columns(STDERR_FILENO));
    RunReport partial = report;
    partial.results = so_far;
    price_and_rate(partial.results, pricing, report.host);
    write_outputs(partial, out);
  });
  if (p.has("spot-drill")) run_spot_drills(config, plan, report.results, out.quiet, stop_requested);
  report.status = overall_status(report.results, stop_requested);
  const int code = finish(report, config, out, p.has("require-converged"));
  if (launcher_store) launcher_store->publish_exit_code(code, 60);
  if (!history.empty()) record_in_history(history, out.json_path, report);
  write_trend_reports(report, out, history);
  return code;
}

}  // namespace pperf::cli
