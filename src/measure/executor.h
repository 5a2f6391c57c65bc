#pragma once
// The measure stage: runs plan items and hands on Result records (measurement, step-time
// estimate and spread, throughput; no prices). Torch-free header: the CLI sees only Results.
//
// Each item runs either in this process or in a child process of its own (`pperf
// measure-item`, which calls measure_item_here and writes its Result to a file this side reads
// back with the results reader). The child is the default for `pperf run`: thread pools, CPU
// affinity and the allocator start fresh for every item (libtorch fixes inter-op threads once
// per process), and a crash costs one result, not the run.
// Guarantees: never throws for a failing item (it becomes a `failed` Result with the reason);
// stop_requested ends the current item after its current step (forwarded to a child as
// SIGINT) and no further item starts; no child process outlives the call.
#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/config/plan.h"
#include "src/core/result.h"
#include "src/measure/distributed.h"
#include "src/measure/turns.h"
#include "src/stats/decision.h"

namespace pperf {

/// How an item's processes run.
struct ProcessOptions {
  std::string pperf_binary;  // started as `measure-item` and as `data-worker` (spawn_local)
  bool native = false;       // running on the named instances themselves, not emulated here
  bool in_process = false;   // measure every item in this process (debugging, tests)
  bool terminal_progress = false;  // a self-updating progress line on stderr while measuring
  /// Measure each configuration to its end before the next (`pperf run --sequential`) instead
  /// of in turns (src/measure/interleave.h).
  bool sequential = false;
  /// A measuring process of a data-parallel item: its rank and where its group meets.
  std::optional<RankContext> rank;
  /// `pperf run` under a launcher (RANK/WORLD_SIZE/... or Slurm): this process's rank; each
  /// data-parallel item's measuring process joins the group at the launcher's address.
  std::optional<RankContext> launcher;
  /// A measuring process taking turns (`measure-item --turns`): its side of the conversation.
  TurnTaking* turns = nullptr;
  /// `pperf run --trace DIR`: after its measured steps, each item traces a few more into DIR
  /// (src/measure/trace.h); "" for none.
  std::string trace_dir;
};

/// How configurations taking turns decide to stop: each configuration's hourly price (a range
/// under a Spot price range) over its baseline's, by configuration name (a number, never a price
/// table), and the decision's settings.
struct TurnDecision {
  std::map<std::string, PriceRatio> price_ratio;
  DecisionSettings settings;
};

struct ExecutorOptions {
  ProcessOptions process;
  TurnDecision decision;
  /// The memory bound of each item's measuring processes and their data workers, bytes
  /// (memory_bound.h); 0: unbounded. Items measured in this process are never bound.
  int64_t max_memory_bytes = 0;
};

/// Told how the measurement goes, on the measuring thread, as it happens (progress lines,
/// partial outputs). Every member defaults to doing nothing; none may throw.
class MeasureObserver {
 public:
  virtual ~MeasureObserver() = default;
  /// An item's set-up begins: its measuring process starts, warms up (turns: all of them at once).
  virtual void setting_up(const PlanItem&) {}
  /// An item's measured steps begin (turns: once every configuration is set up).
  virtual void started(const PlanItem&) {}
  /// Configurations in turns: after every round, and about once a second in between.
  virtual void turns(const TurnsSnapshot&) {}
  /// The results so far, after each item (configurations in turns finish together).
  virtual void results(const std::vector<Result>&) {}
};

/// The same Result marked failed with `reason`, its measured figures dropped.
Result failed_result(Result r, const std::string& reason);

/// The one Result of a measuring process's results file (throws when there is not exactly one).
Result read_item_result(const std::string& path);

/// Measures one item in this process.
Result measure_item_here(const Config& config, const PlanItem& item, const WorkloadRegistry& registry,
                         const ExecutorOptions& options, const std::atomic<bool>& stop_requested);

/// Measures one item in a child process and reads its Result back. A child that dies without
/// a result becomes a failed Result saying how it ended.
Result measure_item_in_child(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                             const std::atomic<bool>& stop_requested);

/// Every item of `plan`: a workload's configurations in turns (interleave.h) unless
/// options.sequential, a data-parallel or launcher run, or in_process; else in order.
/// `observer` hears of each step of the way.
std::vector<Result> run_plan(const Config& config, const Plan& plan, const WorkloadRegistry& registry,
                             const ExecutorOptions& options, const std::atomic<bool>& stop_requested,
                             MeasureObserver& observer);

/// `BINARY SUBCOMMAND --config ... --config-sha256 ... --workload-index W --configuration-index C`:
/// how a child pperf is told which item of which config (it refuses a config that changed since).
std::vector<std::string> item_argv(const std::string& binary, const std::string& subcommand, const Config& config,
                                   const PlanItem& item);

/// The argv a child measuring process is started with (`pperf measure-item ...`).
std::vector<std::string> measure_item_argv(const Config& config, const PlanItem& item, const ExecutorOptions& options,
                                           const std::string& out_path);

}  // namespace pperf
