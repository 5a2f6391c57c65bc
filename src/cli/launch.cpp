// `pperf launch PLATFORM`: a config as the jobs that measure it on the real instances, for each
// platform of src/launch/platform.h's table (CreateTrainingJob requests, SkyPilot task YAMLs,
// Kubernetes manifests). Every refusal comes before anything is written; each file is written
// whole (atomically), and readable by this user only (they carry the data workers' token). The
// hosts' side is src/node (`pperf sagemaker-entry`, `pperf node-entry`).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "src/cli/cli.h"
#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "src/core/utc_time.h"
#include "src/launch/platform.h"

namespace pperf::cli {

namespace fs = std::filesystem;

namespace {

/// Every platform's usage lines, then the flags they share.
std::string launch_usage() {
  std::string usage;
  for (const auto& p : launch_platforms()) usage += (usage.empty() ? "usage: " : "       ") + p.usage;
  return usage +
         "COMMON: --out DIR [--only A,B] [--workload W] [--spot] [--max-runtime-s N]\n"
         "        [--job-suffix S] [--token-file F] [--data-port P] [--data-wait-s N]\n"
         "        [--sagemaker-rates]\n"
         "Writes the jobs into DIR and prints how to start each (docs/launch.md).\n";
}

std::string read_token_file(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  if (!in || !std::getline(in, token) || token.empty()) throw InputError("--token-file", "", "cannot read a token from " + path);
  return token;
}

/// The options every platform takes, then `platform`'s own.
po::options_description launch_options(const LaunchPlatform& platform) {
  auto options = config_options("launch " + platform.name);
  options.add_options()("only", po::value<std::string>(), "comma-separated configuration names (default: all)")(
      "workload", po::value<std::string>(), "the one workload the data instances serve (when the config has several)")(
      "spot", "Spot instances for every job (a Spot configuration gets them anyway)")(
      "max-runtime-s", po::value<int64_t>(), "each job's time bound (default: from the config's measure budget)")(
      "job-suffix", po::value<std::string>(), "appended to each job's name (default: the UTC time YYYYMMDDTHHMMSS and 4 random hex digits)")(
      "token-file", po::value<std::string>(), "the data workers' token (default: a new random one)")(
      "data-port", po::value<int64_t>()->default_value(50051), "the data workers' port")(
      "data-wait-s", po::value<int64_t>()->default_value(600), "how long the trainer waits for a data host to come up")(
      "sagemaker-rates", "SkyPilot, Kubernetes: price a config priced from SageMaker's table at SageMaker's rates (default: EC2's)")(
      "out", po::value<std::string>()->required(), "directory the jobs are written to");
  for (const LaunchFlag& f : platform.flags) {
    if (f.on_off) {
      options.add_options()(f.name.c_str(), f.help.c_str());
    } else if (f.integer) {
      auto* value = po::value<int64_t>();
      if (f.required) value->required();
      options.add_options()(f.name.c_str(), value, f.help.c_str());
    } else {
      auto* value = po::value<std::string>();
      if (f.required) value->required();
      if (f.default_text) value->default_value(*f.default_text);
      options.add_options()(f.name.c_str(), value, f.help.c_str());
    }
  }
  return options;
}

/// The common flags (launch_options) as every platform's options take them.
LaunchCommon common_launch(const Parsed& p) {
  LaunchCommon c;
  if (p.has("only")) c.selection.only = split_commas(p.string("only"));
  if (p.has("workload")) c.selection.workload = p.string("workload");
  c.selection.spot = p.has("spot");
  c.sagemaker_rates = p.has("sagemaker-rates");
  if (p.has("max-runtime-s")) c.max_runtime_s = p.vars["max-runtime-s"].as<int64_t>();
  if (p.has("job-suffix")) {
    c.job_suffix = p.string("job-suffix");
  } else {
    std::string t = utc_timestamp();  // 2026-11-29T03:58:32Z
    t.erase(std::remove_if(t.begin(), t.end(), [](char ch) { return ch == '-' || ch == ':' || ch == 'Z'; }), t.end());
    c.job_suffix = t + "-" + random_token_hex(2);  // launches in the same second differ
  }
  c.token = p.has("token-file") ? read_token_file(p.string("token-file")) : random_token_hex(32);
  c.data_port = p.vars["data-port"].as<int64_t>();
  if (c.data_port < 1 || c.data_port > 65535) throw InputError("--data-port", "", "must be in [1, 65535]");
  c.data_wait_s = p.vars["data-wait-s"].as<int64_t>();
  if (c.data_wait_s < 1) throw InputError("--data-wait-s", "", "must be at least 1 s");
  return c;
}

/// The platform's own flags as given.
LaunchFlagValues flag_values(const Parsed& p, const LaunchPlatform& platform) {
  LaunchFlagValues values;
  for (const LaunchFlag& f : platform.flags) {
    if (!p.has(f.name)) continue;
    if (f.on_off)
      values.switches.insert(f.name);
    else if (f.integer)
      values.integers[f.name] = p.vars[f.name].as<int64_t>();
    else
      values.text[f.name] = p.string(f.name);
  }
  return values;
}

/// Writes each job's file and those beside it into `out`, readable by this user only; refused
/// (nothing written) when one is there already: a job file is never replaced.
void write_private(const fs::path& out, const std::vector<LaunchedJob>& jobs) {
  std::vector<std::pair<std::string, const std::string*>> files;  // name in `out`, text
  for (const auto& job : jobs) {
    files.emplace_back(job.file_name, &job.text);
    for (const auto& side : job.side_files) files.emplace_back(side.file_name, &side.text);
  }
  for (const auto& [name, text] : files)
    if (fs::exists(out / name))
      throw InputError("--out", "", (out / name).string() + " exists; pperf launch never replaces a job file (another --out or --job-suffix)");
  const mode_t old_mask = ::umask(077);
  try {
    for (const auto& [name, text] : files) write_file_atomically((out / name).string(), *text);
  } catch (...) {
    ::umask(old_mask);
    throw;
  }
  ::umask(old_mask);
}

/// What `pperf launch` prints after writing: per job what it measures where and how to start it,
/// then where its results land and how to fetch them (saving them as JOB.json), and, when the
/// config takes several jobs, the `pperf decide` that makes one decision of them.
void print_jobs(const LaunchPlatform& platform, const fs::path& out, const std::vector<LaunchedJob>& jobs) {
  for (const auto& job : jobs) {
    std::cout << fmt::format("{}: {}\n", job.name, job.summary);
    for (const auto& side : job.side_files) std::cout << fmt::format("  {}\n", side.before_start((out / side.file_name).string()));
    std::cout << fmt::format("  {}\n", platform.start_command(job.name, (out / job.file_name).string()));
  }
  for (const auto& job : jobs) {
    std::cout << fmt::format("{}: results land in {}\n", job.name, job.results_at);
    std::cout << fmt::format("  fetch them when it has ended: {}\n", job.fetch);
  }
  if (jobs.size() < 2) return;
  std::vector<std::string> files;
  for (const auto& job : jobs) files.push_back(job.name + ".json");
  std::cout << fmt::format("The config takes {} jobs (one per trainer instance type); with every results file fetched, one decision:\n"
                           "  pperf decide {} --out decided.json --markdown decided.md\n",
                           jobs.size(), fmt::join(files, " "));
}

/// "a, b or c".
std::string either(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace

int command_launch(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << launch_usage();
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const LaunchPlatform* platform = find_launch_platform(args[0]);
  if (!platform) {
    std::vector<std::string> names;
    for (const auto& p : launch_platforms()) names.push_back(p.name);
    throw InputError("pperf launch", "", "unknown platform '" + args[0] + "': expected " + either(names) + did_you_mean(args[0], names));
  }
  auto options = launch_options(*platform);
  Parsed p = parse("launch " + platform->name, options, std::vector<std::string>(args.begin() + 1, args.end()));
  if (p.help) return std::cout << launch_usage() << options, kExitOk;
  const Config config = load_config(p.string("config"), builtin_workloads(), true);
  const LaunchCommon common = common_launch(p);
  const std::vector<LaunchedJob> jobs = platform->launch(config, common, flag_values(p, *platform));
  const fs::path out = p.string("out");
  write_private(out, jobs);
  print_jobs(*platform, out, jobs);
  return kExitOk;
}

}  // namespace pperf::cli
