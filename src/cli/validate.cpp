// `pperf validate`: is the config valid (exit 0 / 2), and would `run` run it here. Exactly the
// run session's preflight, without measuring: a config it calls runnable here passes `run`'s
// checks, and a refusal is the line `run` prints.
#include <fmt/format.h>

#include <iostream>
#include <optional>
#include <sstream>

#include "src/cli/cli.h"
#include "reports/text.h"

namespace pperf::cli {

int command_validate(const std::vector<std::string>& args) {
  auto options = config_options("validate");
  add_memory_option(options);
  options.add_options()("native", "check the config as `run --native` runs it on the priced instances (the workloads' native sizes)");
  Parsed p = parse("validate", options, args);
  if (p.help) return std::cout << options, kExitOk;
  std::ostringstream out;  // wrapped to the terminal when shown
  const auto shown = [&] {
    std::cout << wrap(out.str(), terminal_columns());
    return kExitOk;
  };
  const RunSession session(session_request(p));
  const Config& config = session.config();
  // A refusal is one line, as run prints it; "valid" only for a config that passes.
  const std::optional<Preflight> checked =
      config.priced_only ? std::nullopt : std::optional<Preflight>(session.preflight(true, true));
  // A sweep's points are written for this host (its CPUs, its cores): a point it cannot run is
  // refused, with the line `run` prints.
  if (checked && config.sweep && !checked->not_runnable.empty())
    throw InputError(config.path, checked->not_runnable.front().pointer,
                     "not runnable on this host: " + checked->not_runnable.front().reason);
  out << fmt::format("{}: valid ({} workload(s) x {} configuration(s), {}, prices {})\n", config.path,
                     config.workloads.size(), config.configurations.size(),
                           config.priced_only ? "priced only" : "measured", config.price_table.name);
  // Which size each workload runs: the emulation here, or the real instances' (--native).
  for (size_t w = 0; w < config.workloads_as_written.size(); ++w) {
    const WorkloadSpec& here = config.workloads_as_written[w];
    const std::optional<WorkloadSpec>& real = config.native_workloads[w];
    auto size = [](const WorkloadSpec& s) {
      return fmt::format("preset {}, batch {} samples", s.preset.empty() ? "(default)" : s.preset, s.batch_size);
    };
    if (config.native)
      out << fmt::format("workload {}: runs {} (--native: {})\n", here.name, size(real ? *real : here),
                               real ? "its \"native\" size" : "no \"native\" size given, as written");
    else
      out << fmt::format("workload {}: runs {} (emulated here); --native runs {}\n", here.name, size(here),
                               real ? size(*real) : "the same (no \"native\" size given)");
  }
  if (config.sweep) {
    std::string axes;
    for (size_t a = 0; a < config.sweep->axes.size(); ++a)
      axes += fmt::format("{}{} ({} values)", a ? " x " : "", config.sweep->axes[a], config.sweep->values[a].size());
    out << fmt::format("sweep of '{}': {} point(s), {}: {}\n", config.sweep->base, config.configurations.size(),
                             config.sweep->grid ? "every combination" : "listed", axes);
    for (const auto& c : config.configurations) out << "  " << c.name << "\n";
  }
  if (!checked) return shown();
  if (!checked->notes.empty()) out << "note:\n";
  for (const auto& n : checked->notes) out << "  " << n << "\n";
  if (!checked->not_runnable.empty()) {
    out << "runnable here: no (`pperf run` would refuse it on this host; fine on the host it was written for)\n";
    for (size_t i = 0; i < checked->not_runnable.size(); ++i)
      out << fmt::format("  {}: {} (configuration '{}')\n", checked->not_runnable[i].pointer,
                               checked->not_runnable[i].reason, checked->not_runnable_configurations[i]);
    return shown();
  }
  out << "runnable here: yes\n";
  const auto& plan = session.plan();
  out << fmt::format("memory (each item may hold {:.1f} GiB):\n", checked->memory_limit_bytes / double(1LL << 30));
  for (size_t i = 0; i < checked->memory.size(); ++i)
    out << fmt::format("  {} x {} (batch {}): {}\n", plan.items[i].workload->name, plan.items[i].configuration->name,
                             plan.items[i].workload->batch_size, checked->memory[i].describe());
  return shown();
}

}  // namespace pperf::cli
