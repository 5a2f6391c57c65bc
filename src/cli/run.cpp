// `pperf run`: plan, measure (a process per item), price, report.
#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "src/cli/cli.h"
#include "src/core/atomic_file.h"
#include "src/config/plan.h"
#include "src/core/input_error.h"
#include "src/core/utc_time.h"
#include "src/env/host_info.h"
#include "src/env/placement.h"
#include "src/core/process.h"
#include "src/history/history.h"
#include "src/measure/distributed.h"
#include "src/measure/executor.h"
#include "src/measure/spot_drill.h"
#include "src/measure/peak_flops.h"
#include "src/measure/progress.h"
#include "src/session/run_session.h"
#include "src/stats/replicates.h"
#include "pricing/cost_model.h"
#include "pricing/pricing_stage.h"
#include "reports/text.h"

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

namespace {
/// `--trace DIR`: made if missing, as an absolute path (measuring processes are told it).
std::string trace_folder(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw InputError("pperf run", "--trace", "cannot make the folder " + dir + (ec ? ": " + ec.message() : ""));
  if (::access(dir.c_str(), W_OK) != 0) throw InputError("pperf run", "--trace", dir + " is not writable");
  return std::filesystem::absolute(dir).lexically_normal().string();
}

/// What a run shows while it measures: on a terminal, a self-updating line (the memory probe,
/// set-up, the turns; a measuring process measuring alone draws its own) above which each item's
/// start and end are printed; elsewhere (CI) a line per item start and end; with --quiet, nothing.
/// After each item the results so far are priced and written to the in-progress file.
class RunConsole : public MeasureObserver, public PreflightObserver {
 public:
  RunConsole(const RunSession& session, const RunReport& header, const Outputs& out, bool terminal)
      : session_(session), header_(header), out_(out), terminal_(terminal && !out.quiet) {}

  void probing_memory(const PlanItem& item) override {
    if (terminal_) line_.draw(fmt::format("memory: probing one training step of {} on {} (a fresh process)",
                                               item.workload->name, item.configuration->name));
  }
  void setting_up(const PlanItem& item) override {
    ++started_;
    if (out_.quiet) return;
    line_.clear();
    std::cerr << item_started_line(utc_timestamp(), item.workload->name, item.workload->preset, item.configuration->name,
                                   started_, session_.plan().items.size(), terminal_columns(STDERR_FILENO));
    if (!terminal_) return;
    if (setting_up_workload_ != item.workload->name) setting_up_.clear();
    setting_up_workload_ = item.workload->name;
    setting_up_.push_back(item.configuration->name);
    line_.setting_up(item.workload->name, setting_up_);
  }
  void turns(const TurnsSnapshot& snapshot) override {
    if (terminal_) line_(snapshot);
  }
  void results(const std::vector<Result>& so_far) override {
    line_.clear();
    // Configurations that took turns finish together.
    for (; finished_ < so_far.size(); ++finished_)
      if (!out_.quiet) std::cerr << item_finished_line(utc_timestamp(), so_far[finished_], terminal_columns(STDERR_FILENO));
    RunReport partial = header_;
    partial.results = so_far;
    session_.price(partial.results, header_.host);
    // A full disk must not end the run: the finished results still get their own chance.
    try {
      write_in_progress(partial, out_);
    } catch (const std::exception& e) {
      if (!warned_) std::cerr << "pperf: warning: cannot update the in-progress file (" << e.what() << "); measuring goes on\n";
      warned_ = true;
    }
  }
  void clear() { line_.clear(); }
  /// `--replicates`: the next replicate measures the plan's items again.
  void next_replicate() { started_ = finished_ = 0; }

 private:
  const RunSession& session_;
  const RunReport& header_;
  const Outputs& out_;
  bool terminal_;
  TurnsProgressLine line_;
  size_t started_ = 0, finished_ = 0;
  bool warned_ = false;
  std::string setting_up_workload_;
  std::vector<std::string> setting_up_;
};

/// `--replicates N`: a whole number from 1 to kMostReplicates (1 when absent).
constexpr int64_t kMostReplicates = 100;
int64_t replicates_flag(const Parsed& p) {
  if (!p.has("replicates")) return 1;
  const auto n = positive_integer(p.string("replicates"));
  if (!n || *n > kMostReplicates)
    throw InputError("pperf run", "--replicates",
                     fmt::format("'{}' is not a whole number from 1 to {}", p.string("replicates"), kMostReplicates));
  return *n;
}

/// Replicates pool runs in turns: refused with --sequential, a sweep, or a launcher's ranks.
void refuse_replicates_without_turns(const Config& config, const SessionRequest& request, const ExecutorOptions& executor) {
  if (request.process.sequential)
    throw InputError("pperf run", "--replicates",
                     "replicates pool runs in turns (each run's paired ratio one estimate); --sequential measures one "
                     "configuration after the other");
  if (config.sweep) throw InputError("pperf run", "--replicates", config.path + " has a sweep: its points race, they are not replicated");
  if (executor.process.launcher)
    throw InputError("pperf run", "--replicates", "started by a launcher (every rank runs once): run the launcher again instead");
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
      "trace", po::value<std::string>(), "after measuring each configuration, trace a few more of its steps with "
                                         "libtorch's profiler into this folder (Chrome/Perfetto JSON, one file each)")(
      "sequential", "measure each configuration to its end before the next, instead of in alternating rounds")(
      "dry-run", "check everything `run` checks before measuring (as `pperf validate` does), then stop")(
      "spot-drill", "for each Spot configuration: SIGKILL its training mid-run, restart from the last checkpoint, "
                    "record the lost time measured beside the model's prediction")(
      "require-converged", "exit 1 when a result stopped on max_steps/max_seconds before its CI reached target_rel_ci")(
      "replicates", po::value<std::string>(), "measure the whole comparison N times in turns, each run its own replicate "
                                              "measured to its budget; the verdict pools them (random effects over runs)");
  Parsed p = parse("run", options, join_optional_value(args, "--history"));
  if (p.help) return std::cout << options, kExitOk;

  const int64_t replicates = replicates_flag(p);
  SessionRequest request = session_request(p);
  if (p.has("only")) request.filter.configurations = split_commas(p.string("only"));
  if (p.has("workload")) request.filter.workload = p.string("workload");
  request.process = {p.has("native"), p.has("in-process"), p.has("sequential")};
  const RunSession session(request);
  const Config& config = session.config();
  if (!request.process.in_process && !std::filesystem::is_regular_file(config.path))
    throw InputError("--config", "", config.path + " is not a regular file: each measuring process re-reads it (or use --in-process)");
  ExecutorOptions executor = session.executor_options();
  if (replicates > 1) refuse_replicates_without_turns(config, request, executor);
  // Replicates are fixed samples: each measured to its budget, not stopped by its own decision.
  if (replicates > 1) executor.decision.price_ratio.clear();
  if (p.has("trace")) executor.process.trace_dir = trace_folder(p.string("trace"));
  // Started by a launcher (torchrun, PyTorchJob, SageMaker, srun): every rank runs this same
  // config; rank 0 serves the group's store, measures and writes the outputs; the other ranks
  // write nothing and exit with rank 0's code. Items measured in this process are not bound, nor probed.
  const bool rank0 = !executor.process.launcher || executor.process.launcher->rank == 0;
  const bool quiet = p.has("quiet");
  const bool terminal = !quiet && ::isatty(STDERR_FILENO);
  if (p.has("dry-run")) {
    session.preflight(false, !request.process.in_process && rank0);
    if (!quiet) std::cout << fmt::format("{}: ready to run ({} item(s)); nothing measured (--dry-run)\n", config.path,
                                         session.plan().items.size());
    return kExitOk;
  }
  std::unique_ptr<RunStore> launcher_store;
  if (executor.process.launcher) {
    double timeout_s = 300;
    for (const auto& item : session.plan().items)
      if (item.configuration->execution.distributed) timeout_s = item.configuration->execution.distributed->timeout_s;
    launcher_store = std::make_unique<RunStore>(*executor.process.launcher, rank0, timeout_s);
    if (!rank0) {
      session.preflight(false, false);
      const std::atomic<bool>& stop = install_stop_handlers(false);
      MeasureObserver silent;
      session.measure(executor, stop, silent);
      return launcher_store->wait_exit_code();
    }
  }
  const Outputs out = outputs_from(p, config);
  RunReport report = report_header(config, "run", argv);
  report.placement = capture_placement(report.host);  // the launcher's PPERF_* variables (src/env/placement.h)
  RunConsole console(session, report, out, terminal);
  session.preflight(false, !request.process.in_process, console);
  console.clear();
  const std::string history = history_path_from(p);
  if (!history.empty()) History(history, History::Mode::create);  // a bad database fails before the run
  warn_if_prices_stale(config, out.quiet);  // after every input is known good: a mistake stays one line
  // MFU's denominator: this host's peak GEMM rate, measured once per host fingerprint.
  report.host["peak_gflops"] = cached_peak_gflops(host_fingerprint(report.host), default_peak_cache_path());
  // Until the run ends, the in-progress file beside --out says "interrupted": a run killed at
  // any point leaves valid JSON with what it had measured, and the earlier --out stays whole.
  start_in_progress(report, out);
  const std::atomic<bool>& stop_requested = install_stop_handlers(!out.quiet);
  // In CI each item's start and end is a line; on a terminal the parent draws the progress of
  // configurations in turns, and a measuring process measuring alone draws its own.
  executor.process.terminal_progress = terminal;
  std::vector<ReplicateRun> runs;
  for (int64_t i = 0; i < replicates && !stop_requested; ++i) {
    if (replicates > 1 && !out.quiet) std::cerr << fmt::format("[{}] replicate {} of {}\n", utc_timestamp(), i + 1, replicates);
    console.next_replicate();
    ReplicateRun run;
    run.started_at = utc_timestamp();
    run.results = session.measure(executor, stop_requested, console);
    console.clear();
    // What `pperf decide` matches results measured apart by: the workload's params and seed.
    for (size_t j = 0; j < run.results.size() && j < session.plan().items.size(); ++j) {
      const PlanItem& item = session.plan().items[j];
      if (run.results[j].configuration != item.configuration->name) continue;
      run.results[j].params = item.workload->params;
      run.results[j].seed = static_cast<int64_t>(item.workload->seed);
    }
    run.finished_at = utc_timestamp();
    runs.push_back(std::move(run));
  }
  if (!runs.empty()) report.results = runs.back().results;
  if (p.has("spot-drill")) run_spot_drills(config, session.plan(), report.results, out.quiet, stop_requested);
  report.status = overall_status(report.results, stop_requested);
  // Replicates: each run priced (its own single-run decision recorded), then pooled.
  const auto pool = [&](RunReport& priced) {
    if (runs.size() < 2) return;
    for (size_t i = 0; i + 1 < runs.size(); ++i) session.price(runs[i].results, priced.host);
    runs.back().results = priced.results;
    const auto ratio = [](const Result& candidate, const Result& baseline) { return price_ratio_of(*candidate.cost, *baseline.cost); };
    priced.replicates = pool_replicate_runs(runs, ratio, session.decision_settings(), priced.results);
  };
  const Finished finished = finish(report, session, out, p.has("require-converged"), pool);
  if (launcher_store) launcher_store->publish_exit_code(finished.code, 60);
  if (!history.empty() && finished.written) return record_and_trend(history, report, out, finished);
  if (finished.written) write_trend_reports(report, out, history);
  return finished.code;
}

}  // namespace pperf::cli
