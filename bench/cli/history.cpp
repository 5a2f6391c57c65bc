// `pperf history record|list|show|changes|mark`: the SQLite history of finished runs.
#include <fmt/format.h>

#include <iostream>

#include "bench/cli/cli.h"
#include "bench/core/atomic_file.h"
#include "bench/core/input_error.h"
#include "bench/core/results_json.h"
#include "bench/history/history.h"

namespace pperf::cli {

namespace {

const char* kHistoryUsage =
    "usage: pperf history <subcommand> [--db FILE] ...\n"
    "  record RESULTS.json...            record results files written earlier\n"
    "  list [--config NAME] [--last N] [--json]\n"
    "                                    the recorded runs, oldest first\n"
    "  show RUN_ID [--out FILE]          the results JSON exactly as recorded\n"
    "--db FILE: the database (default $PPERF_HISTORY, else results/history.sqlite).\n";

po::options_description common_options(const std::string& sub) {
  po::options_description o("pperf history " + sub + " options");
  o.add_options()("help,h", "show this help")("db", po::value<std::string>(), "history database (default $PPERF_HISTORY, else results/history.sqlite)");
  return o;
}

std::string db_path(const Parsed& p) { return p.has("db") ? p.string("db") : default_history_path(); }

int64_t parse_run_id(const std::string& command, const std::string& text) {
  try {
    size_t used = 0;
    const long long id = std::stoll(text, &used);
    if (used == text.size() && id > 0) return id;
  } catch (const std::exception&) {
  }
  throw InputError("pperf " + command, "RUN_ID", "expected a positive run id, got '" + text + "'");
}

int history_record(const std::vector<std::string>& args) {
  auto options = common_options("record");
  options.add_options()("files", po::value<std::vector<std::string>>()->multitoken(), "results files");
  po::positional_options_description positional;
  positional.add("files", -1);
  Parsed p = parse("history record", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  if (!p.has("files")) throw InputError("pperf history record", "", "expected RESULTS.json...");
  // Read and check every file first: bad input records nothing.
  std::vector<std::pair<std::string, RunReport>> runs;
  for (const auto& f : p.vars["files"].as<std::vector<std::string>>()) {
    RunReport report = read_results_file(f);
    runs.emplace_back(read_text_file(f), std::move(report));
  }
  History history(db_path(p), History::Mode::create);
  const auto& files = p.vars["files"].as<std::vector<std::string>>();
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto rec = history.record(runs[i].first, runs[i].second);
    std::cout << fmt::format(rec.already ? "{}: already recorded as run {} in {}\n" : "{}: recorded as run {} in {}\n",
                             files[i], rec.id, history.path());
  }
  return kExitOk;
}

int history_list(const std::vector<std::string>& args) {
  auto options = common_options("list");
  options.add_options()("config", po::value<std::string>(), "only runs of this config name")(
      "last", po::value<int64_t>(), "only the newest N runs")("json", "print a JSON array of runs, each with its id");
  Parsed p = parse("history list", options, args);
  if (p.help) return std::cout << options, kExitOk;
  std::optional<int64_t> last;
  if (p.has("last")) {
    last = p.vars["last"].as<int64_t>();
    if (*last < 1) throw InputError("pperf history list", "--last", fmt::format("must be >= 1, got {}", *last));
  }
  const History history(db_path(p), History::Mode::read);
  const auto runs = history.list(p.has("config") ? std::optional<std::string>(p.string("config")) : std::nullopt, last);
  if (p.has("json")) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : runs) out.push_back(to_json(r));
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("{:>5}  {:<20}  {:<24}  {:<12}  {:<12}  {:<11}  {}\n", "id", "started_at", "config", "git",
                           "host", "status", "results");
  for (const auto& r : runs)
    std::cout << fmt::format("{:>5}  {:<20}  {:<24}  {:<12}  {:<12}  {:<11}  {}\n", r.id, r.started_at, r.config_name,
                             r.git_sha.substr(0, 12), r.host_fingerprint, r.status, r.results);
  std::cout << fmt::format("{} run(s) in {}\n", runs.size(), history.path());
  return kExitOk;
}

int history_show(const std::vector<std::string>& args) {
  auto options = common_options("show");
  options.add_options()("run", po::value<std::string>()->required(), "RUN_ID")(
      "out", po::value<std::string>(), "write the results JSON to FILE instead of stdout");
  po::positional_options_description positional;
  positional.add("run", 1);
  Parsed p = parse("history show", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  const int64_t id = parse_run_id("history show", p.string("run"));
  const History history(db_path(p), History::Mode::read);
  const auto text = history.results_text(id);
  if (!text) throw InputError("pperf history show", "RUN_ID", fmt::format("no run {} in {}", id, history.path()));
  if (p.has("out"))
    write_file_atomically(p.string("out"), *text);
  else
    std::cout << *text << std::flush;
  return kExitOk;
}

}  // namespace

int command_history(const std::vector<std::string>& args) {
  if (args.empty()) return std::cerr << kHistoryUsage, kExitBadInput;
  const std::string sub = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "record") return history_record(rest);
  if (sub == "list") return history_list(rest);
  if (sub == "show") return history_show(rest);
  if (sub == "--help" || sub == "-h" || sub == "help") return std::cout << kHistoryUsage, kExitOk;
  throw InputError("pperf history", "", "unknown subcommand '" + sub + "'" +
                                            did_you_mean(sub, {"record", "list", "show"}));
}

}  // namespace pperf::cli
