// `pperf list workloads|instances|configs`: what can be run, what can be priced, what ships.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "bench/cli/cli.h"
#include "bench/core/input_error.h"
#include "pricing/price_table.h"

namespace pperf::cli {

int command_list(const std::vector<std::string>& args) {
  po::options_description options("pperf list options");
  options.add_options()("help,h", "show this help")("what", po::value<std::string>(),
                                                   "workloads | instances | configs")(
      "pricing", po::value<std::string>()->default_value("aws-sagemaker-us-east-1"), "price table name or path");
  po::positional_options_description positional;
  positional.add("what", 1);
  Parsed p = parse("list", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  if (!p.has("what")) {
    std::cout << "pperf list workloads              the workloads, their presets and params\n"
                 "pperf list instances [--pricing T] the instance types a price table prices\n"
                 "pperf list configs                the shipped configs (`--config NAME` runs one from anywhere)\n";
    return kExitOk;
  }
  const std::string what = p.string("what");
  if (what == "workloads") {
    for (const auto& d : builtin_workloads().all()) {
      const std::vector<std::string> can = capability_names(d.capabilities);
      std::cout << d.name << "\n  " << d.description << "\n  capabilities: " << (can.empty() ? "none" : fmt::to_string(fmt::join(can, ", ")))
                << "\n  presets:\n";
      for (const auto& preset : d.presets)
        std::cout << fmt::format("    {:<8} {} (default batch_size {})\n", preset.name, preset.doc, preset.default_batch_size);
      std::cout << "  params:\n";
      size_t name_w = 0, type_w = 0, default_w = 0;
      for (const auto& param : d.params) {
        name_w = std::max(name_w, param.name.size());
        type_w = std::max(type_w, param.type.size());
        default_w = std::max(default_w, param.default_value.dump().size());
      }
      for (const auto& param : d.params)
        std::cout << fmt::format("    {:<{}} {:<{}} default {:<{}} {}\n", param.name, name_w, param.type, type_w,
                                 param.default_value.dump(), default_w, param.doc);
    }
    return kExitOk;
  }
  if (what == "instances") {
    const PriceTable table = load_price_table(p.string("pricing"));
    std::cout << fmt::format("{} ({}, {}; retrieved {})\nsource: {}\n", table.name, table.region,
                             table.currency, table.retrieved, table.source);
    std::cout << fmt::format("{:<18} {:>5} {:>10} {:>24} {:>16} {:>22}\n", "type", "vCPUs", "memory GiB",
                             "accelerators", "on-demand USD/h", "spot USD/h (min..max)");
    for (const auto& [type, s] : table.instances) {
      std::string accel = s.accelerators ? fmt::format("{}x {}", s.accelerators, s.accelerator_model) : "-";
      std::string spot = s.spot.min && s.spot.max ? fmt::format("{:.2f}..{:.2f}", *s.spot.min, *s.spot.max)
                         : s.spot.avg            ? fmt::format("{:.4f}", *s.spot.avg)
                                                 : "-";
      std::cout << fmt::format("{:<18} {:>5} {:>10g} {:>24} {:>16} {:>22}\n", type, s.vcpus, s.memory_gib, accel,
                               s.on_demand ? fmt::format("{:.4f}", *s.on_demand) : "-", spot);
    }
    return kExitOk;
  }
  if (what == "configs") {
    const std::string dir = shipped_configs_dir();
    const auto configs = shipped_configs(dir);
    if (configs.empty()) throw InputError("pperf list configs", "", "no shipped configs in " + dir);
    size_t name_w = 0;
    for (const auto& c : configs) name_w = std::max(name_w, c.name.size());
    std::cout << "shipped configs in " << dir << " (pperf run --config NAME, from any directory):\n";
    for (const auto& c : configs)
      std::cout << fmt::format("{:<{}}  {}\n", c.name, name_w, c.summary.empty() ? "(no description)" : c.summary);
    return kExitOk;
  }
  throw InputError("pperf list", "", "unknown list '" + what + "': expected workloads, instances or configs" +
                                         did_you_mean(what, {"workloads", "instances", "configs"}));
}

}  // namespace pperf::cli
