#include "src/session/run_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "src/session/sweep_race.h"
#include "pricing/scaling_curve.h"
#include "src/core/input_error.h"
#include "src/core/process.h"
#include "src/env/shaped_link.h"
#include "src/measure/data_sources.h"
#include "src/measure/distributed.h"
#include "src/measure/interleave.h"
#include "src/measure/memory_bound.h"
#include "src/stats/decision.h"
#include "src/stats/intervals.h"
#include "src/stats/stopping.h"

namespace pperf {

HostCapacity host_capacity(bool native) {
  HostCapacity host = HostCapacity::here();
  if (const auto launcher = launcher_from_env()) host.launcher_world_size = launcher->world_size;
  host.native = native;
  host.link_obstacle = shaped_link_obstacle();
  return host;
}

namespace {
/// The request's filter, or the baseline alone.
PlanFilter filter_of(const SessionRequest& request, const Config& config) {
  PlanFilter filter = request.filter;
  if (request.baseline_only) filter.configurations = {config.baseline().name};
  return filter;
}
}  // namespace

RunSession::RunSession(const SessionRequest& request)
    : request_(request),
      config_(load_config(request.config, builtin_workloads(), request.process.native)),
      plan_(make_plan(config_, filter_of(request, config_), host_capacity(request.process.native))),
      pricing_(pricing_inputs(config_)) {
  pricing_.turns_decision = decision_settings();
}

int64_t RunSession::memory_limit_bytes() const {
  const std::optional<double> gib = request_.max_memory_gib ? request_.max_memory_gib : config_.measure.max_memory_gib;
  return gib ? static_cast<int64_t>(*gib * (1LL << 30)) : default_memory_limit_bytes();
}

namespace {
/// A Python dataset that does not import, whose factory raises or whose samples do not fit the
/// model: refused naming the module. Workers already running elsewhere (endpoints) are checked
/// at their handshake instead.
void check_python_datasets(const Config& config, const Plan& plan) {
  for (const auto& item : plan.items) {
    const DataSettings& data = item.configuration->execution.data;
    if (data.worker != DataWorker::python || (data.mode == DataMode::service && data.spawn_local_processes == 0)) continue;
    const WorkloadDescriptor* descriptor = builtin_workloads().find(item.workload->name);
    WorkloadSpec spec = *item.workload;
    spec.wire = item.data_path.wire;
    const std::vector<TensorDecl> expected = descriptor && descriptor->batch_layout
                                                 ? layout_on_wire(descriptor->batch_layout(spec), spec.wire)
                                                 : std::vector<TensorDecl>{};
    if (const std::string why = check_python_dataset(self_executable(), spec, data, expected); !why.empty())
      throw InputError(config.path,
                       item.configuration->pointer + "/execution/data/" + (data.dataset_is_dataloader ? "dataloader" : "dataset"),
                       why);
  }
}

/// Each workload entry's own preflight (python_step: its module imports), once per entry.
void check_workloads(const Config& config, const Plan& plan) {
  std::set<size_t> checked;
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
}
}  // namespace

std::vector<std::string> budget_notes(const Config& config, bool sequential) {
  std::vector<std::string> notes;
  const MeasureSettings& m = config.measure;
  if (m.max_steps < static_cast<int64_t>(kMinCiSteps))
    notes.push_back(fmt::format("measure: max_steps {} gives no result an interval (each needs {} steps): no verdict, "
                                "and `pperf decide` cannot use its results",
                                m.max_steps, kMinCiSteps));
  // A workload's configurations (none data-parallel) take turns, decided against the baseline or
  // raced (a sweep), and the decision first looks at round min_rounds: a budget that ends the
  // turns before it cannot decide.
  const auto& cs = config.configurations;
  const bool turns = !sequential && cs.size() > 1 &&
                     std::none_of(cs.begin(), cs.end(), [](const auto& c) { return c.execution.distributed.has_value(); });
  const bool decided = config.sweep || std::any_of(cs.begin(), cs.end(), [](const auto& c) { return c.baseline; });
  const DecisionSettings d = settings_for_turns(config.measure.decision, m.max_steps, kRoundSteps);
  if (turns && decided && budget_rounds(m.max_steps, kRoundSteps) < d.min_rounds)
    notes.push_back(fmt::format("measure: max_steps {} gives {} round(s) of {} steps in turns; the decision's first look is "
                                "at round {} ({} steps): the run ends undecided",
                                m.max_steps, budget_rounds(m.max_steps, kRoundSteps), kRoundSteps, d.min_rounds,
                                static_cast<int64_t>(d.min_rounds) * kRoundSteps));
  return notes;
}

Preflight RunSession::preflight(bool list_not_runnable, bool probe_memory) const {
  PreflightObserver silent;
  return preflight(list_not_runnable, probe_memory, silent);
}

Preflight RunSession::preflight(bool list_not_runnable, bool probe_memory, PreflightObserver& observer) const {
  if (config_.priced_only)
    throw InputError(config_.path, "/configurations", "every configuration gives step_time_ms (nothing to measure): use `pperf cost`");
  Preflight out;
  out.memory_limit_bytes = memory_limit_bytes();
  for (const auto& item : plan_.items) {
    for (const auto& note : item.notes) {
      const std::string line = fmt::format("configuration '{}': {}", item.configuration->name, note);
      if (std::find(out.notes.begin(), out.notes.end(), line) == out.notes.end()) out.notes.push_back(line);
    }
    for (const auto& obstacle : item.not_runnable_here) {
      if (!list_not_runnable || obstacle.emulation_setup) throw InputError(config_.path, obstacle.pointer, "not runnable on this host: " + obstacle.reason);
      const bool seen = std::any_of(out.not_runnable.begin(), out.not_runnable.end(), [&](const Obstacle& o) {
        return o.pointer == obstacle.pointer && o.reason == obstacle.reason;
      });
      if (seen) continue;
      out.not_runnable.push_back(obstacle);
      out.not_runnable_configurations.push_back(item.configuration->name);
    }
  }
  const MeasureSettings& m = config_.measure;
  if (m.criterion == "precision" && m.max_steps < unseen_tail_steps(m.target_rel_ci))
    out.notes.push_back(fmt::format(
        "measure: max_steps {} is below the {:.0f} steps a ±{:g} % target needs before it may stop (3 / target_rel_ci): "
        "runs end on their budget, unconverged, unless a decision ends them",
        m.max_steps, unseen_tail_steps(m.target_rel_ci), m.target_rel_ci * 100));
  for (const auto& note : budget_notes(config_, request_.process.sequential)) out.notes.push_back(note);
  if (!out.not_runnable.empty()) return out;
  check_python_datasets(config_, plan_);
  check_workloads(config_, plan_);
  if (!probe_memory) return out;
  // A batch that cannot fit is refused before anything runs (the bound would end it; this says
  // so before the wait).
  out.memory = estimate_plan_memory(config_, plan_, self_executable(), out.memory_limit_bytes,
                                    [&](const PlanItem& item) { observer.probing_memory(item); });
  for (size_t i = 0; i < out.memory.size(); ++i)
    if (!out.memory[i].fits()) {
      // A sweep point's batch size is refused at the sweep's value (/sweep/axes/batch_size/2).
      std::string pointer = fmt::format("/workloads/{}/batch_size", plan_.items[i].workload_index);
      for (const auto& [path, at] : plan_.items[i].configuration->sweep_pointers)
        if (path == "/workload/batch_size") pointer = at;
      throw InputError(config_.path, pointer,
                       fmt::format("does not fit in memory (configuration '{}'): one training step {}; the limit is "
                                   "{:g} GiB: lower batch_size or raise --max-memory",
                                   plan_.items[i].configuration->name, out.memory[i].describe(),
                                   out.memory_limit_bytes / double(1LL << 30)));
    }
  return out;
}

ExecutorOptions RunSession::executor_options() const {
  ExecutorOptions options;
  options.process.native = request_.process.native;
  options.process.in_process = request_.process.in_process;
  options.process.sequential = request_.process.sequential;
  options.max_memory_bytes = memory_limit_bytes();
  options.process.pperf_binary = self_executable();
  options.process.launcher = launcher_from_env();
  for (const auto& c : config_.configurations)
    if (c.baseline) options.decision.price_ratio = price_ratios(pricing_, c.name);
  options.decision.settings = decision_settings();
  return options;
}

DecisionSettings RunSession::decision_settings() const {
  return settings_for_turns(config_.measure.decision, config_.measure.max_steps, kRoundSteps);
}

std::vector<Result> RunSession::measure(const ExecutorOptions& options, const std::atomic<bool>& stop_requested,
                                        MeasureObserver& observer) const {
  return run_plan(config_, plan_, builtin_workloads(), options, stop_requested, observer);
}

void RunSession::price(std::vector<Result>& results, const nlohmann::json& host) const {
  price_and_rate(results, pricing_, host);
}

void RunSession::price(RunReport& report) const {
  price(report.results, report.host);
  report.sweep = sweep_race_record(config_, report.results, decision_settings());
  report.scaling = scaling_record(config_.scaling, report.results);
}

}  // namespace pperf
