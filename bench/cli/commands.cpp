#include "bench/cli/commands.h"

#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <malloc.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <iostream>
#include <sstream>

#include "bench/config/config.h"
#include "bench/config/input_error.h"
#include "bench/dataservice/data_service.h"
#include "bench/env/host_info.h"
#include "bench/env/torch_info.h"
#include "bench/runner/sweep.h"
#include "pricing/price_results.h"
#include "reports/atomic_file.h"
#include "reports/writers.h"

namespace pperf {

namespace po = boost::program_options;

namespace {

constexpr int kExitOk = 0, kExitResultFailed = 1, kExitBadInput = 2, kExitRuntime = 3;

std::atomic<bool> g_stop_requested{false};

std::string self_executable();

/// Batches and activations are large (MBs) and allocated every step. glibc would hand each one
/// fresh mmap'd pages and unmap them on free, so every step pays thousands of page faults
/// (costly under virtualisation). Keeping freed memory in the heap makes the buffers reused.
void keep_freed_memory_mapped() {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

extern "C" void on_stop_signal(int) {
  // First signal: finish the current step, write what was measured, exit. Second: default.
  g_stop_requested = true;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

const char* kUsage =
    "usage: pperf <command> [options]\n"
    "commands:\n"
    "  run       measure each (workload x configuration) and price it\n"
    "  cost      price the step times given in a config (nothing is run)\n"
    "  validate  check a config and exit\n"
    "  list      list workloads or instances\n"
    "  data-worker  serve a config's preprocessed batches over gRPC (the data role)\n"
    "`pperf <command> --help` shows a command's options.\n";

struct Parsed {
  po::variables_map vars;
  bool help = false;
};

/// Parses a subcommand's flags; any mistake is an InputError naming the flag.
Parsed parse(const std::string& command, const po::options_description& options,
             const std::vector<std::string>& args, const po::positional_options_description* positional = nullptr) {
  Parsed parsed;
  try {
    po::command_line_parser parser(args);
    parser.options(options);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), parsed.vars);
    parsed.help = parsed.vars.count("help") > 0;
    if (!parsed.help) po::notify(parsed.vars);
  } catch (const po::error_with_option_name& e) {
    std::string flag = e.get_option_name();
    throw InputError("pperf " + command, flag.empty() ? "" : flag, e.what());
  } catch (const po::error& e) {
    throw InputError("pperf " + command, "", e.what());
  }
  return parsed;
}

po::options_description config_options(const std::string& command) {
  po::options_description o("pperf " + command + " options");
  o.add_options()("help,h", "show this help")(
      "config", po::value<std::string>()->required(), "config file (JSON, keys in DESIGN.md §4)");
  return o;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

RunReport report_header(const Config& config, const std::string& command, const std::vector<std::string>& argv) {
  RunReport report;
  report.tool_version = PPERF_VERSION;
  report.git_sha = source_git_sha();
  report.command = command;
  report.config_name = config.name;
  report.config_path = config.path;
  report.config_sha256 = config.sha256;
  report.host = capture_host(argv);
  report.host["torch"] = torch_facts();
  report.started_at = utc_timestamp();
  const PriceTable& t = config.price_table;
  report.pricing_table = t.name;
  report.pricing_source = t.source;
  report.pricing_retrieved = t.retrieved;
  report.pricing_region = t.region;
  report.pricing_currency = t.currency;
  report.pricing_market = to_string(config.pricing.market);
  report.discount_pct = config.pricing.discount_pct;
  return report;
}

struct Outputs {
  std::string json_path, csv_path;
};

void write_outputs(const RunReport& report, const Outputs& out) {
  write_file_atomically(out.json_path, to_json(report).dump(2) + "\n");
  if (!out.csv_path.empty()) write_file_atomically(out.csv_path, to_csv(report));
}

std::string default_out(const Config& config) { return "results/" + config.name + ".json"; }

int finish(RunReport& report, const Config& config, const Outputs& out) {
  price_results(report.results, config);
  report.finished_at = utc_timestamp();
  write_outputs(report, out);
  std::cout << to_console_table(report);
  std::cout << "results: " << out.json_path << (out.csv_path.empty() ? "" : ", " + out.csv_path) << "\n";
  if (report.status == "interrupted") return kExitRuntime;
  for (const auto& r : report.results)
    if (r.status == "failed") return kExitResultFailed;
  return kExitOk;
}

int command_run(const std::vector<std::string>& args, const std::vector<std::string>& argv) {
  auto options = config_options("run");
  options.add_options()("out", po::value<std::string>(), "results JSON (default results/<config name>.json)")(
      "csv", po::value<std::string>(), "also write the result rows as CSV")(
      "only", po::value<std::string>(), "comma-separated configuration names to run")(
      "workload", po::value<std::string>(), "run only this workload of the config")(
      "native", "running on the named instances themselves: results say emulated: false");
  Parsed p = parse("run", options, args);
  if (p.help) return std::cout << options, kExitOk;

  const Config config = load_config(p.vars["config"].as<std::string>(), builtin_workloads());
  if (config.priced_only)
    throw InputError(config.path, "/configurations", "every configuration gives step_time_ms (nothing to measure): use `pperf cost`");
  SweepOptions filter;
  filter.native = p.vars.count("native") > 0;
  filter.pperf_binary = self_executable();
  if (p.vars.count("only")) {
    std::vector<std::string> names;
    for (const auto& c : config.configurations) names.push_back(c.name);
    filter.configurations = split_commas(p.vars["only"].as<std::string>());
    for (const auto& name : filter.configurations)
      if (std::find(names.begin(), names.end(), name) == names.end())
        throw InputError("--only", "", "no configuration '" + name + "' in " + config.path + did_you_mean(name, names));
  }
  if (p.vars.count("workload")) {
    filter.workload = p.vars["workload"].as<std::string>();
    std::vector<std::string> names;
    for (const auto& w : config.workloads) names.push_back(w.name);
    if (std::find(names.begin(), names.end(), filter.workload) == names.end())
      throw InputError("--workload", "", "no workload '" + filter.workload + "' in " + config.path + did_you_mean(filter.workload, names));
  }
  Outputs out{p.vars.count("out") ? p.vars["out"].as<std::string>() : default_out(config),
              p.vars.count("csv") ? p.vars["csv"].as<std::string>() : ""};

  RunReport report = report_header(config, "run", argv);
  // Until the sweep ends, the file on disk says "interrupted": a run killed at any point
  // leaves valid JSON with what it had measured.
  report.status = "interrupted";
  write_outputs(report, out);

  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  report.results = run_sweep(config, builtin_workloads(), filter, g_stop_requested,
                             [&](const std::vector<Result>& so_far) {
    const Result& r = so_far.back();
    std::cerr << fmt::format("[{}] {}/{} on {}: {}\n", utc_timestamp(), r.workload, r.preset, r.configuration,
                             r.status == "ok" ? fmt::format("median {:.2f} ms/step over {} steps ({})",
                                                            r.step->median_ms, r.measurement->step_ms.size(),
                                                            r.measurement->stop_reason)
                                              : r.status + ": " + r.reason);
    RunReport partial = report;
    partial.results = so_far;
    price_results(partial.results, config);
    write_outputs(partial, out);
  });
  report.status = g_stop_requested ? "interrupted" : "complete";
  return finish(report, config, out);
}

std::string self_executable() {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "pperf" : path.string();
}

int command_data_worker(const std::vector<std::string>& args) {
  po::options_description options("pperf data-worker options");
  options.add_options()("help,h", "show this help")(
      "config", po::value<std::string>()->required(), "config whose workload to serve")(
      "workload", po::value<std::string>(), "which workload of the config (default: the first)")(
      "listen", po::value<std::string>()->default_value("127.0.0.1:0"), "HOST:PORT (port 0: any free port)")(
      "workers", po::value<int64_t>()->default_value(1), "preprocessing threads per stream")(
      "prefetch", po::value<int64_t>()->default_value(4), "ready batches buffered per stream")(
      "token", po::value<std::string>(), "shared secret required off loopback (or env PPERF_DATA_TOKEN)")(
      "cpus", po::value<std::string>(), "comma-separated CPUs to pin to");
  Parsed p = parse("data-worker", options, args);
  if (p.help) return std::cout << options, kExitOk;
  const Config config = load_config(p.vars["config"].as<std::string>(), builtin_workloads());
  const WorkloadSpec* spec = &config.workloads.front();
  if (p.vars.count("workload")) {
    spec = nullptr;
    for (const auto& w : config.workloads)
      if (w.name == p.vars["workload"].as<std::string>()) spec = &w;
    if (!spec) throw InputError("--workload", "", "no workload '" + p.vars["workload"].as<std::string>() + "' in " + config.path);
  }
  DataWorkerOptions o;
  o.listen = p.vars["listen"].as<std::string>();
  o.workers = p.vars["workers"].as<int64_t>();
  o.prefetch_batches = p.vars["prefetch"].as<int64_t>();
  if (o.workers < 1) throw InputError("--workers", "", "must be >= 1");
  if (o.prefetch_batches < 1) throw InputError("--prefetch", "", "must be >= 1");
  if (p.vars.count("token")) o.token = p.vars["token"].as<std::string>();
  else if (const char* t = std::getenv("PPERF_DATA_TOKEN")) o.token = t;
  if (p.vars.count("cpus")) {
    for (const auto& c : split_commas(p.vars["cpus"].as<std::string>())) {
      char* end = nullptr;
      long cpu = std::strtol(c.c_str(), &end, 10);
      if (*end || cpu < 0 || cpu >= static_cast<long>(std::thread::hardware_concurrency()))
        throw InputError("--cpus", "", "'" + c + "' is not a CPU of this host");
      o.cpus.push_back(static_cast<int>(cpu));
    }
  }
  return run_data_worker(*spec, builtin_workloads(), o);
}

int command_cost(const std::vector<std::string>& args, const std::vector<std::string>& argv) {
  auto options = config_options("cost");
  options.add_options()("out", po::value<std::string>(), "results JSON (default results/<config name>.json)")(
      "csv", po::value<std::string>(), "also write the result rows as CSV");
  Parsed p = parse("cost", options, args);
  if (p.help) return std::cout << options, kExitOk;
  const Config config = load_config(p.vars["config"].as<std::string>(), builtin_workloads());
  if (!config.priced_only)
    throw InputError(config.path, "/configurations", "`pperf cost` needs step_time_ms on every configuration");
  Outputs out{p.vars.count("out") ? p.vars["out"].as<std::string>() : default_out(config),
              p.vars.count("csv") ? p.vars["csv"].as<std::string>() : ""};
  RunReport report = report_header(config, "cost", argv);
  report.results = given_step_times(config);
  return finish(report, config, out);
}

int command_validate(const std::vector<std::string>& args) {
  auto options = config_options("validate");
  Parsed p = parse("validate", options, args);
  if (p.help) return std::cout << options, kExitOk;
  const Config config = load_config(p.vars["config"].as<std::string>(), builtin_workloads());
  std::cout << fmt::format("{}: ok ({} workload(s) x {} configuration(s), {}, prices {})\n", config.path,
                           config.workloads.size(), config.configurations.size(),
                           config.priced_only ? "priced only" : "runnable", config.price_table.name);
  return kExitOk;
}

int command_list(const std::vector<std::string>& args) {
  po::options_description options("pperf list options");
  options.add_options()("help,h", "show this help")("what", po::value<std::string>()->required(),
                                                   "workloads | instances")(
      "pricing", po::value<std::string>()->default_value("aws-sagemaker-us-east-1"), "price table name or path");
  po::positional_options_description positional;
  positional.add("what", 1);
  Parsed p = parse("list", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  const std::string what = p.vars["what"].as<std::string>();
  if (what == "workloads") {
    for (const auto& d : builtin_workloads().all()) {
      std::cout << d.name << "\n  " << d.description << "\n  presets:\n";
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
    const PriceTable table = load_price_table(p.vars["pricing"].as<std::string>());
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
  throw InputError("pperf list", "", "unknown list '" + what + "': expected workloads or instances" +
                                         did_you_mean(what, {"workloads", "instances"}));
}

}  // namespace

int run_cli(int argc, char** argv) {
  keep_freed_memory_mapped();
  const std::vector<std::string> argv_copy(argv, argv + argc);
  if (argc < 2) return std::cerr << kUsage, kExitBadInput;
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "run") return command_run(args, argv_copy);
    if (command == "cost") return command_cost(args, argv_copy);
    if (command == "validate") return command_validate(args);
    if (command == "list") return command_list(args);
    if (command == "data-worker") return command_data_worker(args);
    if (command == "--help" || command == "-h" || command == "help") return std::cout << kUsage, kExitOk;
    throw InputError("pperf", "", "unknown command '" + command + "'" +
                                      did_you_mean(command, {"run", "cost", "validate", "list", "data-worker"}));
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "pperf " << command << ": " << e.what() << "\n";
    return kExitRuntime;
  }
}

}  // namespace pperf
