// `pperf list workloads|instances|configs`: what can be run, what can be priced, what ships.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <limits>

#include "src/cli/cli.h"
#include "src/core/input_error.h"
#include "pricing/price_table.h"

namespace pperf::cli {

int command_list(const std::vector<std::string>& args) {
  po::options_description options("pperf list options");
  options.add_options()("help,h", "show this help")("what", po::value<std::string>(),
                                                   "workloads | instances | configs")(
      "pricing", po::value<std::string>()->default_value("aws-sagemaker-us-east-1"), "price table name or path")(
      "region", po::value<std::string>(), "instances: the table's region to list (default: its only region)")(
      "accelerator", po::value<std::string>(),
      "instances: only types whose accelerator model contains this text (case-insensitive, e.g. A100, trainium); "
      "\"none\" for CPU-only types")(
      "min-accelerators", po::value<std::string>(), "instances: at least this many accelerators")(
      "min-vcpus", po::value<std::string>(), "instances: at least this many vCPUs")(
      "max-vcpus", po::value<std::string>(), "instances: at most this many vCPUs")(
      "max-usd-per-hour", po::value<std::string>(),
      "instances: at most this price per instance-hour (USD/h) in --market")(
      "market", po::value<std::string>()->default_value("on_demand"),
      "instances: the market --max-usd-per-hour and the sort apply to: on_demand or spot");
  po::positional_options_description positional;
  positional.add("what", 1);
  Parsed p = parse("list", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  if (!p.has("what")) {
    std::cout << "pperf list workloads              the workloads, their presets and params\n"
                 "pperf list instances [--pricing T] [--region R] [--accelerator TEXT] [--min-accelerators N]\n"
                 "                    [--min-vcpus N] [--max-vcpus N] [--max-usd-per-hour USD] [--market M]\n"
                 "                                   the instance types a price table prices, cheapest first\n"
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
    const PriceTable table = load_price_table(p.string("pricing"), p.has("region") ? p.string("region") : "");
    const auto whole = [&](const std::string& flag) -> std::optional<int64_t> {
      if (!p.has(flag)) return std::nullopt;
      const auto n = positive_integer(p.string(flag));
      if (!n) throw InputError("pperf list", "--" + flag, "expected a whole number > 0, got '" + p.string(flag) + "'");
      return n;
    };
    const auto min_vcpus = whole("min-vcpus"), max_vcpus = whole("max-vcpus"), min_acc = whole("min-accelerators");
    std::optional<double> max_usd;
    if (p.has("max-usd-per-hour")) {
      const std::string text = p.string("max-usd-per-hour");
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != 0 || !(v > 0))
        throw InputError("pperf list", "--max-usd-per-hour", "expected a price in USD/h > 0, got '" + text + "'");
      max_usd = v;
    }
    const std::string market_text = p.string("market");
    const auto market = parse_market(market_text);
    if (!market) throw InputError("pperf list", "--market", "expected on_demand or spot, got '" + market_text + "'");
    auto lower = [](std::string s) {
      for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    const std::string accel = p.has("accelerator") ? lower(p.string("accelerator")) : "";
    std::vector<std::pair<double, const InstanceSpec*>> rows;  // sorted by price in --market
    for (const auto& [type, s] : table.instances) {
      if (accel == "none" ? s.accelerators > 0 : !accel.empty() && lower(s.accelerator_model).find(accel) == std::string::npos)
        continue;
      if (min_acc && s.accelerators < *min_acc) continue;
      if (min_vcpus && s.vcpus < *min_vcpus) continue;
      if (max_vcpus && s.vcpus > *max_vcpus) continue;
      const auto q = quote(s, *market);
      if (max_usd && (!q || q->usd_per_hour > *max_usd)) continue;
      rows.emplace_back(q ? q->usd_per_hour : std::numeric_limits<double>::infinity(), &s);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::cout << fmt::format("{} ({}, {}; published {}, retrieved {}; regions: {})\nsource: {}\n", table.name, table.region,
                             table.currency, table.published.empty() ? "unknown" : table.published, table.retrieved,
                             fmt::join(table.region_names(), ", "), table.source);
    std::cout << fmt::format("{:<16} {:>5} {:>10} {:>19} {:>11} {:>15} {:>30}\n", "type", "vCPUs", "memory GiB",
                             "accelerators", "link Gbit/s", "on-demand USD/h", "spot USD/h: min..max (median)");
    for (const auto& [_, sp] : rows) {
      const InstanceSpec& s = *sp;
      std::string accel_text = s.accelerators ? fmt::format("{}x {}", s.accelerators, s.accelerator_model) : "-";
      std::string spot = !s.spot.min || !s.spot.max ? (s.spot.avg ? fmt::format("{:.4f}", *s.spot.avg) : "-")
                         : *s.spot.min == *s.spot.max ? fmt::format("{:.4g}", *s.spot.min)
                                                      : fmt::format("{:.4g}..{:.4g}", *s.spot.min, *s.spot.max);
      if (s.spot.median && s.spot.min != s.spot.max) spot += fmt::format(" (median {:.4g})", *s.spot.median);
      std::cout << fmt::format("{:<16} {:>5} {:>10g} {:>19} {:>11} {:>15} {:>30}\n", s.type, s.vcpus, s.memory_gib, accel_text,
                               s.link_gbps ? fmt::format("{:g}", *s.link_gbps) : "-",
                               s.on_demand ? fmt::format("{:.4f}", *s.on_demand) : "-", spot);
    }
    if (rows.empty()) std::cout << "(no instance type matches)\n";
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
