// `pperf validate`: is the config valid (exit 0 / 2), and what of it would not run here.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "bench/cli/cli.h"
#include "bench/config/plan.h"

namespace pperf::cli {

int command_validate(const std::vector<std::string>& args) {
  auto options = config_options("validate");
  add_memory_option(options);
  Parsed p = parse("validate", options, args);
  if (p.help) return std::cout << options, kExitOk;
  const Config config = load_config(p.string("config"), builtin_workloads());
  const HostCapacity host = host_capacity(false);
  const Plan plan = make_plan(config, {}, host);
  std::cout << fmt::format("{}: valid ({} workload(s) x {} configuration(s), {}, prices {})\n", config.path,
                           config.workloads.size(), config.configurations.size(),
                           config.priced_only ? "priced only" : "measured", config.price_table.name);
  if (config.priced_only) return kExitOk;
  std::vector<std::string> notes;
  for (const auto& item : plan.items)
    for (const auto& note : item.notes) {
      const std::string line = fmt::format("  configuration '{}': {}", item.configuration->name, note);
      if (std::find(notes.begin(), notes.end(), line) == notes.end()) notes.push_back(line);
    }
  if (!notes.empty()) std::cout << "note:\n";
  for (const auto& n : notes) std::cout << n << "\n";
  std::vector<std::string> lines;
  for (const auto& item : plan.items)
    for (const auto& obstacle : item.not_runnable_here) {
      const std::string line = fmt::format("  {}: {} (configuration '{}')", obstacle.pointer, obstacle.reason,
                                           item.configuration->name);
      if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
    }
  if (lines.empty()) {
    std::cout << "runnable here: yes\n";
    // Each item's probed need (a refusal, exit 2, when one cannot fit: `pperf run` would refuse it).
    const int64_t limit = max_memory_bytes(p, config);
    const std::vector<MemoryEstimate> memory = check_memory(config, plan, limit);
    std::cout << fmt::format("memory (each item may hold {:.1f} GiB):\n", limit / double(1LL << 30));
    for (size_t i = 0; i < memory.size(); ++i)
      std::cout << fmt::format("  {} x {} (batch {}): {}\n", plan.items[i].workload->name, plan.items[i].configuration->name,
                               plan.items[i].workload->batch_size, memory[i].describe());
  } else {
    std::cout << "runnable here: no (`pperf run` would refuse it on this host; fine on the host it was written for)\n";
    for (const auto& l : lines) std::cout << l << "\n";
  }
  return kExitOk;
}

}  // namespace pperf::cli
