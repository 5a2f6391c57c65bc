// `pperf list workloads|instances|configs`: what can be run, what can be priced, what ships.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <iostream>
#include <limits>
#include <sstream>

#include "src/cli/cli.h"
#include "src/core/input_error.h"
#include "pricing/price_table.h"
#include "reports/text.h"

namespace pperf::cli {

namespace {
/// One `list instances` row as text, cell by cell.
struct InstanceRow {
  std::string type, vcpus, memory, accelerators, link, on_demand, spot, spot_median;
};

InstanceRow instance_row(const InstanceSpec& s) {
  InstanceRow r{s.type, std::to_string(s.vcpus), fmt::format("{:g}", s.memory_gib),
                s.accelerators ? fmt::format("{}x {}", s.accelerators, s.accelerator_model) : "-",
                s.link_gbps ? fmt::format("{:g}", *s.link_gbps) : "-", s.on_demand ? fmt::format("{:.4f}", *s.on_demand) : "-",
                "", ""};
  r.spot = !s.spot.min || !s.spot.max ? (s.spot.avg ? fmt::format("{:.4f}", *s.spot.avg) : "-")
           : *s.spot.min == *s.spot.max ? fmt::format("{:.4g}", *s.spot.min)
                                        : fmt::format("{:.4g}..{:.4g}", *s.spot.min, *s.spot.max);
  if (s.spot.median && s.spot.min != s.spot.max) r.spot_median = fmt::format(" (median {:.4g})", *s.spot.median);
  return r;
}

/// The rows as a table sized to its cells. In `width` columns (0: no limit) the headers shorten,
/// then the spot medians, the memory and the vCPUs give way until the lines fit; a last line
/// says what was left out.
std::string instances_table(const std::vector<InstanceRow>& rows, size_t width) {
  struct Column {
    std::string header, short_header;
    std::function<std::string(const InstanceRow&)> cell;
    bool left = false;
  };
  const std::vector<Column> all = {
      {"type", "type", [](const InstanceRow& r) { return r.type; }, true},
      {"vCPUs", "vCPUs", [](const InstanceRow& r) { return r.vcpus; }},
      {"memory GiB", "GiB", [](const InstanceRow& r) { return r.memory; }},
      {"accelerators", "accelerators", [](const InstanceRow& r) { return r.accelerators; }},
      {"link Gbit/s", "Gbit/s", [](const InstanceRow& r) { return r.link; }},
      {"on-demand USD/h", "USD/h", [](const InstanceRow& r) { return r.on_demand; }},
      {"spot USD/h: min..max (median)", "spot USD/h", [](const InstanceRow& r) { return r.spot + r.spot_median; }}};
  const auto render = [&](bool short_headers, bool medians, bool memory, bool vcpus, size_t& widest) {
    std::vector<const Column*> shown;
    for (const auto& c : all)
      if ((memory || c.header != "memory GiB") && (vcpus || c.header != "vCPUs")) shown.push_back(&c);
    const auto cell = [&](const Column& c, const InstanceRow& r) {
      return &c == &all.back() && !medians ? r.spot : c.cell(r);
    };
    const auto header = [&](const Column& c) {
      return short_headers ? (&c == &all.back() && medians ? "spot USD/h (median)" : c.short_header) : c.header;
    };
    std::vector<size_t> w;
    for (const Column* c : shown) {
      size_t cw = header(*c).size();
      for (const auto& r : rows) cw = std::max(cw, cell(*c, r).size());
      w.push_back(cw);
    }
    std::string out;
    widest = 0;
    const auto line = [&](const std::function<std::string(const Column&)>& text) {
      std::string l;
      for (size_t i = 0; i < shown.size(); ++i) {
        const std::string t = text(*shown[i]);
        l += (i ? " " : "") + (shown[i]->left && i + 1 < shown.size() ? fmt::format("{:<{}}", t, w[i]) : fmt::format("{:>{}}", t, w[i]));
      }
      widest = std::max(widest, l.size());
      out += l + "\n";
    };
    line(header);
    for (const auto& r : rows) line([&](const Column& c) { return cell(c, r); });
    return out;
  };
  // What gives way first, one step at a time: {short headers, medians, memory, vCPUs, said left out}.
  const std::vector<std::tuple<bool, bool, bool, bool, std::string>> steps = {
      {false, true, true, true, ""},
      {true, true, true, true, ""},
      {true, false, true, true, "the spot medians"},
      {true, false, false, true, "the spot medians and the memory"},
      {true, false, false, false, "the spot medians, the memory and the vCPUs"}};
  std::string out;
  for (const auto& [short_headers, medians, memory, vcpus, left_out] : steps) {
    size_t widest = 0;
    out = render(short_headers, medians, memory, vcpus, widest);
    if (width == 0 || widest <= width) {
      if (!left_out.empty()) out += wrap("left out at this width: " + left_out + " (--wide prints every column)\n", width);
      return out;
    }
  }
  return out;
}
}  // namespace

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
      "instances: the market --max-usd-per-hour and the sort apply to: on_demand or spot")(
      "wide", "instances: print every column, whatever the terminal's width");
  po::positional_options_description positional;
  positional.add("what", 1);
  Parsed p = parse("list", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  if (!p.has("what")) {
    std::cout << "pperf list workloads    the workloads, their presets and params\n"
                 "pperf list instances    the instance types of a price table, cheapest first:\n"
                 "  [--pricing T] [--region R] [--accelerator TEXT] [--min-accelerators N]\n"
                 "  [--min-vcpus N] [--max-vcpus N] [--max-usd-per-hour USD] [--market M]\n  [--wide]\n"
                 "pperf list configs      the shipped configs (`--config NAME` runs one anywhere)\n";
    return kExitOk;
  }
  const std::string what = p.string("what");
  if (what == "workloads") {
    std::ostringstream text;  // wrapped to the terminal at the end
    for (const auto& d : builtin_workloads().all()) {
      const std::vector<std::string> can = capability_names(d.capabilities);
      text << d.name << "\n  " << d.description << "\n  capabilities: " << (can.empty() ? "none" : fmt::to_string(fmt::join(can, ", ")))
                << "\n  presets:\n";
      for (const auto& preset : d.presets)
        text << fmt::format("    {:<8} {} (default batch_size {})\n", preset.name, preset.doc, preset.default_batch_size);
      text << "  params:\n";
      size_t name_w = 0, type_w = 0, default_w = 0;
      for (const auto& param : d.params) {
        name_w = std::max(name_w, param.name.size());
        type_w = std::max(type_w, param.type.size());
        default_w = std::max(default_w, param.default_value.dump().size());
      }
      for (const auto& param : d.params)
        text << fmt::format("    {:<{}} {:<{}} default {:<{}} {}\n", param.name, name_w, param.type, type_w,
                            param.default_value.dump(), default_w, param.doc);
    }
    std::cout << wrap(text.str(), terminal_columns());
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
    const size_t width = p.has("wide") ? 0 : terminal_columns();
    std::cout << wrap(fmt::format("{} ({}, {}; published {}, retrieved {}; regions: {})\nsource: {}\nlink: the network's "
                                  "Gbit/s each way, - where the provider publishes only a burst (\"up to\") figure\n",
                                  table.name, table.region, table.currency, table.published.empty() ? "unknown" : table.published,
                                  table.retrieved, fmt::join(table.region_names(), ", "), table.source),
                      width);
    std::vector<InstanceRow> listed;
    for (const auto& [_, sp] : rows) listed.push_back(instance_row(*sp));
    std::cout << instances_table(listed, width);
    if (rows.empty()) std::cout << "(no instance type matches)\n";
    return kExitOk;
  }
  if (what == "configs") {
    const std::string dir = shipped_configs_dir();
    const auto configs = shipped_configs(dir);
    if (configs.empty()) throw InputError("pperf list configs", "", "no shipped configs in " + dir);
    size_t name_w = 0;
    for (const auto& c : configs) name_w = std::max(name_w, c.name.size());
    std::cout << wrap("shipped configs in " + dir + " (pperf run --config NAME, from any directory):\n", terminal_columns());
    for (const auto& c : configs)
      std::cout << wrap(fmt::format("{:<{}}  {}\n", c.name, name_w, c.summary.empty() ? "(no description)" : c.summary),
                        terminal_columns());
    return kExitOk;
  }
  throw InputError("pperf list", "", "unknown list '" + what + "': expected workloads, instances or configs" +
                                         did_you_mean(what, {"workloads", "instances", "configs"}));
}

}  // namespace pperf::cli
