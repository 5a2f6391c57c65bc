#pragma once
// One run session: the one path through the libraries that `pperf run`, `validate` and `cost`
// take — config -> plan -> preflight -> measure -> price. The commands parse flags and write
// outputs; the order of the stages and what each checks live here alone.
//
// Guarantees: a config `validate` accepts as runnable here passes `run`'s preflight, and the
// same mistake is the same InputError line in both (preflight() is the one check); pricing
// inputs are built once per session; measure() keeps the executor's guarantees (never throws
// for an item, no child outlives it).
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/config/config.h"
#include "src/config/plan.h"
#include "src/measure/executor.h"
#include "src/measure/memory_probe.h"
#include "pricing/pricing_stage.h"

namespace pperf {

/// This host as the plan sees it: HostCapacity::here() plus the launcher that started this
/// process (its world size; a malformed launcher environment is an InputError), `--native` and
/// whether it can emulate a data group's link (shaped_link_obstacle()).
HostCapacity host_capacity(bool native);

/// How the items' processes run (flags of `run`).
struct ProcessSettings {
  bool native = false;      // on the named instances themselves: results say emulated: false
  bool in_process = false;  // every item in this process (debugging): not probed, not bound
  bool sequential = false;  // each configuration to its end, not in turns
};

/// What a command asks of the session.
struct SessionRequest {
  std::string config;  // a file, or a shipped config's name
  PlanFilter filter;
  ProcessSettings process;
  std::optional<double> max_memory_gib;  // --max-memory: overrides measure.max_memory_gib
  /// The plan holds the baseline configuration alone (`pperf project` measures its reference),
  /// in place of filter.configurations.
  bool baseline_only = false;
};

/// What `config`'s measure budget (max_steps) cannot give, as preflight notes: an interval for
/// each result (kMinCiSteps steps), and, for configurations that take turns (none data-parallel,
/// not `sequential`) against a baseline or in a sweep's race, the decision's first look. Empty
/// when it gives both.
std::vector<std::string> budget_notes(const Config& config, bool sequential);

/// What preflight found, for the command to show.
struct Preflight {
  std::vector<std::string> notes;         // "configuration 'x': ...", each once
  std::vector<Obstacle> not_runnable;     // each once; empty: runnable here
  std::vector<std::string> not_runnable_configurations;  // beside not_runnable: whose obstacle
  int64_t memory_limit_bytes = 0;         // what each item's processes may hold together
  std::vector<MemoryEstimate> memory;     // per plan item; empty when not probed
};

/// Told what preflight is doing (a probe takes seconds); none may throw.
class PreflightObserver {
 public:
  virtual ~PreflightObserver() = default;
  virtual void probing_memory(const PlanItem&) {}
};

class RunSession {
 public:
  /// Loads the config (InputError for any mistake in it), makes the plan (InputError for an
  /// unknown --only/--workload name) and the pricing inputs.
  explicit RunSession(const SessionRequest& request);

  const Config& config() const { return config_; }
  const Plan& plan() const { return plan_; }
  const PricingInputs& pricing() const { return pricing_; }

  /// Everything that refuses the config before anything runs, in this order: priced-only (nothing
  /// to measure), not runnable on this host, Python datasets that do not import or fit, each
  /// workload's own preflight, a batch that cannot fit in memory (probed in fresh processes).
  /// Throws the first refusal as an InputError naming the config file and JSON pointer. With
  /// `list_not_runnable`, the not-runnable obstacles are returned instead of thrown and the checks
  /// after them are skipped (`validate` lists them: a config may be meant for another host) —
  /// but for what the emulation itself lacks here (Obstacle::emulation_setup), thrown either way.
  /// `probe_memory` false: no probe (measuring in this process, or a launcher's rank > 0).
  Preflight preflight(bool list_not_runnable, bool probe_memory, PreflightObserver& observer) const;
  Preflight preflight(bool list_not_runnable, bool probe_memory) const;

  /// The executor's settings for this session (the price ratios against the baseline, the
  /// decision settings, the memory bound).
  ExecutorOptions executor_options() const;
  /// The decision settings the measuring loop decides and races with (the config's, for turns of
  /// kRoundSteps within max_steps); the sweep's record is replayed with the same.
  DecisionSettings decision_settings() const;

  /// Measures every item (src/measure/executor.h: run_plan).
  std::vector<Result> measure(const ExecutorOptions& options, const std::atomic<bool>& stop_requested,
                              MeasureObserver& observer) const;

  /// Prices and rates `results` (pricing/pricing_stage.h: price_and_rate) with this session's
  /// pricing inputs; call once per set of results.
  void price(std::vector<Result>& results, const nlohmann::json& host) const;
  /// The price stage of a finished run: prices and rates `report`'s results against its host
  /// (as above), then records a sweep's race from them (src/session/sweep_race.h); call once
  /// per report.
  void price(RunReport& report) const;

  /// Bytes each item's processes may hold together: the request's GiB, else the config's
  /// measure.max_memory_gib, else 80 % of the memory available now.
  int64_t memory_limit_bytes() const;

 private:
  SessionRequest request_;
  Config config_;
  Plan plan_;
  PricingInputs pricing_;
};

}  // namespace pperf
