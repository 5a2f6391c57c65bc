#include "src/cli/cli.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <iostream>

#include "src/config/plan.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "src/core/utc_time.h"
#include "src/env/build_info.h"
#include "src/history/history.h"
#include "src/env/host_info.h"
#include "src/measure/distributed.h"
#include "src/core/process.h"
#include "src/measure/torch_info.h"
#include "pricing/pricing_stage.h"
#include "pricing/table_provenance.h"
#include "reports/formats.h"
#include "reports/text.h"

namespace pperf::cli {

namespace {
std::atomic<bool> g_stop_requested{false};
bool g_announce_stop = false;

extern "C" void on_stop_signal(int) {
  g_stop_requested = true;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (g_announce_stop) {
    static const char message[] =
        "\npperf: finishing the current step, then writing what was measured (again to abort)\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, message, sizeof message - 1);
  }
}

/// Boost's message for a flag's mistake, less the flag it names again ("--role: the option
/// '--role' is required but missing" reads "--role: required, not given (the job's IAM ...)").
std::string flag_error(const po::error_with_option_name& e, const std::string& flag, const po::options_description& options) {
  const std::string name = flag.rfind("--", 0) == 0 ? flag.substr(2) : flag;
  const po::option_description* known = options.find_nothrow(name, false);
  if (dynamic_cast<const po::required_option*>(&e))
    return "required, not given" + (known && !known->description().empty() ? " (" + known->description() + ")" : "");
  if (dynamic_cast<const po::unknown_option*>(&e)) {
    std::vector<std::string> names;
    for (const auto& o : options.options()) names.push_back("--" + o->long_name());
    return "unknown option" + did_you_mean(flag, names) + " (--help lists them)";
  }
  if (dynamic_cast<const po::multiple_occurrences*>(&e)) return "given more than once";
  if (const auto* syntax = dynamic_cast<const po::invalid_command_line_syntax*>(&e);
      syntax && syntax->kind() == po::invalid_syntax::missing_parameter)
    return "needs a value";
  if (dynamic_cast<const po::invalid_option_value*>(&e)) {
    const std::string text = e.what();  // "the argument ('abc') for option '--n' is invalid"
    const size_t open = text.find("('"), close = text.find("')");
    return "invalid value" + (open != std::string::npos && close != std::string::npos && close > open
                                  ? " '" + text.substr(open + 2, close - open - 2) + "'"
                                  : std::string());
  }
  return e.what();
}

}  // namespace

void check_writable(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(flag, "", "cannot create the directory " + dir.string() + " for " + path + ": " + ec.message());
  if (fs::is_directory(path, ec)) throw InputError(flag, "", path + " is a directory");
  const std::string probe = (dir / (".pperf-write-probe." + std::to_string(getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    throw InputError(flag, "", "cannot write " + path + ": the directory " + dir.string() + " does not accept new files (" +
                                   std::strerror(errno) + ")");
  ::close(fd);
  ::unlink(probe.c_str());
}

int exit_code_for(const RunReport& report, bool require_converged) {
  if (report.status == RunStatus::interrupted) return kExitRuntime;
  for (const auto& r : report.results)
    if (r.status == ResultStatus::failed || r.partial) return kExitResultFailed;
  if (require_converged && first_unconverged(report)) return kExitResultFailed;
  return kExitOk;
}

const Result* first_unconverged(const RunReport& report) {
  for (const auto& r : report.results)
    if (r.converged && !*r.converged) return &r;
  return nullptr;
}

Parsed parse(const std::string& command, const po::options_description& options, const std::vector<std::string>& args,
             const po::positional_options_description* positional) {
  Parsed parsed;
  try {
    po::command_line_parser parser(args);
    parser.options(options);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), parsed.vars);
    parsed.help = parsed.vars.count("help") > 0;
    if (!parsed.help) po::notify(parsed.vars);
  } catch (const po::error_with_option_name& e) {
    const std::string flag = e.get_option_name();
    throw InputError("pperf " + command, flag.empty() ? "" : flag, flag.empty() ? e.what() : flag_error(e, flag, options));
  } catch (const po::error& e) {
    throw InputError("pperf " + command, "", e.what());
  }
  return parsed;
}

po::options_description config_options(const std::string& command) {
  po::options_description o("pperf " + command + " options");
  o.add_options()("help,h", "show this help")("config", po::value<std::string>()->required(),
                                                "config file (JSON, keys in docs/config.md), or a shipped config's name (pperf list configs)");
  return o;
}

po::options_description item_options(const std::string& command) {
  auto o = config_options(command);
  o.add_options()("config-sha256", po::value<std::string>()->required(), "the config's expected SHA-256")(
      "workload-index", po::value<size_t>()->required(), "index into the config's workloads")(
      "configuration-index", po::value<size_t>()->required(), "index into the config's configurations")(
      "native", "on the priced instances themselves: the workloads' native sizes, results say emulated: false");
  return o;
}

PlanItem item_from(const Parsed& p, const Config& config) {
  if (config.sha256 != p.string("config-sha256"))
    throw InputError(config.path, "", "changed while pperf was running (its SHA-256 differs)");
  const size_t w = p.vars["workload-index"].as<size_t>(), c = p.vars["configuration-index"].as<size_t>();
  if (w >= config.workloads.size()) throw InputError("--workload-index", "", "out of range");
  if (c >= config.configurations.size()) throw InputError("--configuration-index", "", "out of range");
  return plan_item(config, w, c, host_capacity(p.has("native")));
}

RunReport report_header(const Config& config, const std::string& command, const std::vector<std::string>& argv) {
  RunReport report;
  report.tool_version = build_version();
  report.git_sha = build_git_sha();
  report.command = command;
  report.config_name = config.name;
  report.config_path = config.path;
  report.config_sha256 = config.sha256;
  report.host = capture_host(argv);
  report.host["torch"] = torch_facts();
  report.started_at = utc_timestamp();
  report.status = RunStatus::interrupted;
  record_price_table(report, config.price_table);
  report.pricing_market = to_string(config.pricing.market);
  report.discount_pct = config.pricing.discount_pct;
  return report;
}

std::string stale_prices_line(const PriceTable& table, int64_t max_age_days, const std::string& today, size_t width) {
  const std::string warning = staleness_warning(table, max_age_days, today);
  if (warning.empty()) return "";
  const std::string full = "pperf: warning: " + warning;
  if (width == 0 || full.size() <= width) return full + "\n";
  // On a terminal, one line: the shortest form that still says which table and why.
  const auto age = days_between(table.published, today);
  const std::string why = table.published.empty() || !age ? "prices of unknown date" : fmt::format("prices {} days old", *age);
  for (const std::string& line : {fmt::format("pperf: warning: {}: {} (`pperf prices import` gets current ones)", table.name, why),
                                  fmt::format("pperf: warning: {}: {} (pperf prices import)", table.name, why),
                                  fmt::format("pperf: warning: {}: {}", table.name, why)})
    if (line.size() <= width) return line + "\n";
  return fmt::format("pperf: warning: {}: {}\n", table.name, why);
}

void warn_if_prices_stale(const Config& config, bool quiet) {
  if (quiet) return;
  std::cerr << stale_prices_line(config.price_table, config.pricing.max_age_days, utc_today(), terminal_columns(STDERR_FILENO));
}

void add_output_options(po::options_description& options, const std::string& default_out) {
  options.add_options()("out", po::value<std::string>(), ("results JSON (default " + default_out + ")").c_str());
  add_file_flags(options, run_writers());
  options.add_options()("wide", "print every column, whatever the terminal's width")("quiet", "print nothing but errors");
}

Outputs outputs_from(const Parsed& parsed, const Config& config) {
  Outputs out;
  out.json_path = parsed.has("out") ? parsed.string("out") : "results/" + config.name + ".json";
  out.in_progress_path = out.json_path + ".in-progress";
  out.wide = parsed.has("wide");
  out.quiet = parsed.has("quiet");
  check_writable(out.json_path, "--out");
  out.files = file_outputs(parsed, run_writers());
  // Two runs writing one file would each think they won: the second is refused instead.
  const std::filesystem::path json(out.json_path);
  const std::string lock = (json.parent_path() / ("." + json.filename().string() + ".lock")).string();
  out.lock_fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (out.lock_fd < 0 || ::flock(out.lock_fd, LOCK_EX | LOCK_NB) != 0)
    throw InputError("--out", "", out.json_path + " is being written by another pperf right now (lock " + lock + ")");
  std::error_code ec;
  if (std::filesystem::exists(out.json_path, ec)) {
    try {
      out.replaced_run = read_results_file(out.json_path).started_at;
    } catch (const std::exception&) {
      out.replaced_run = "an unreadable earlier file";
    }
  }
  return out;
}

void start_in_progress(const RunReport& report, const Outputs& outputs) {
  try {
    write_in_progress(report, outputs);
  } catch (const std::exception& e) {
    throw InputError("--out", "", std::string("cannot write the run's in-progress file: ") + e.what());
  }
}

void write_in_progress(const RunReport& report, const Outputs& outputs) {
  write_file_atomically(outputs.in_progress_path, results_file_text(report));
}

Finished finish(RunReport& report, const RunSession& session, const Outputs& outputs, bool require_converged,
                const std::function<void(RunReport&)>& after_pricing) {
  session.price(report);
  if (after_pricing) after_pricing(report);
  report.finished_at = utc_timestamp();
  Finished finished{exit_code_for(report, require_converged), false, outputs.json_path};
  const std::string text = results_file_text(report);
  std::string failure;
  try {
    write_file_atomically(outputs.json_path, text);
    finished.written = true;
    std::error_code ec;
    std::filesystem::remove(outputs.in_progress_path, ec);
    write_run_files(report, outputs.json_path, "", "", outputs.files);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (!outputs.quiet) {
    std::cout << to_console(report, ConsoleOptions{terminal_columns(), outputs.wide});
    if (failure.empty()) {
      std::string results = outputs.json_path, reports;
      for (const auto& f : outputs.files)
        if (f.writer->shows_trends) reports += "report: " + f.path + "\n";
        else results += ", " + f.path;
      std::cout << wrap("results: " + results +
                            (outputs.replaced_run.empty() ? "" : " (replaced the results of the run started " + outputs.replaced_run + ")") +
                            "\n" + reports,
                        terminal_columns());
      std::cout << wrap(traces_line(report), terminal_columns());
    }
  }
  if (!failure.empty()) {
    // Nothing measured is lost: the results go where they can (--out's file, if written, stands).
    std::string kept;
    if (!finished.written) {
      const std::string fallback = (std::filesystem::temp_directory_path() /
                                    ("pperf-" + report.config_name + "-" + std::to_string(::getpid()) + ".json")).string();
      try {
        write_file_atomically(fallback, text);
        kept = "the results are in " + fallback;
        finished.json_path = fallback;
      } catch (const std::exception&) {
        kept = "the results measured so far are in " + outputs.in_progress_path;
        finished.json_path = outputs.in_progress_path;
      }
    } else {
      kept = "the results are in " + outputs.json_path;
    }
    std::cerr << "pperf: cannot write the outputs: " << failure << "; " << kept << "\n";
    finished.code = kExitRuntime;
  }
  if (const Result* r = require_converged ? first_unconverged(report) : nullptr)
    std::cerr << fmt::format("pperf: --require-converged: {}/{} on {} did not converge ({})\n", r->workload, r->preset,
                             r->configuration, r->measurement ? r->measurement->stop.text : "no measurement");
  return finished;
}

std::string traces_line(const RunReport& report) {
  std::vector<std::string> folders;
  size_t files = 0;
  for (const auto& r : report.results)
    if (r.trace) {
      ++files;
      const std::string folder = std::filesystem::path(r.trace->path).parent_path().string();
      if (std::find(folders.begin(), folders.end(), folder) == folders.end()) folders.push_back(folder);
    }
  if (files == 0) return "";
  return fmt::format("traces: {} file{} in {} (Chrome trace JSON: ui.perfetto.dev, chrome://tracing)\n", files,
                     files == 1 ? "" : "s", fmt::join(folders, ", "));
}

void write_trend_reports(const RunReport& report, const Outputs& outputs, const std::string& history_db) {
  if (history_db.empty()) return;
  std::vector<OutputFile> trend_files;
  for (const auto& f : outputs.files)
    if (f.writer->shows_trends) trend_files.push_back(f);
  if (!trend_files.empty())
    write_run_files(report, outputs.json_path, read_text_file(outputs.json_path), history_db, trend_files);
}

size_t terminal_columns(int fd) {
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(columns, &end, 10);
    if (*end == 0 && n > 0) return static_cast<size_t>(n);
  }
  if (!::isatty(fd)) return 0;
  // A pseudo-terminal can report 0 columns (`script`, some CI runners): its width is unknown.
  winsize size{};
  return ::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col : kUnknownTerminalColumns;
}

void add_history_option(po::options_description& options) {
  options.add_options()("history", po::value<std::string>()->implicit_value(""),
                        "record the finished run in the history database DB, a file or a postgresql:// URI (default "
                        "$PPERF_HISTORY, else results/history.sqlite); PPERF_HISTORY set records too");
}

std::vector<std::string> join_optional_value(const std::vector<std::string>& args, const std::string& flag) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == flag && i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-') {
      out.push_back(flag + "=" + args[i + 1]);
      ++i;
    } else {
      out.push_back(args[i]);
    }
  }
  return out;
}

std::string history_path_from(const Parsed& parsed) {
  if (parsed.has("history")) {
    const std::string given = parsed.string("history");
    return given.empty() ? default_history_path() : given;
  }
  const char* env = std::getenv("PPERF_HISTORY");
  return env && *env ? env : "";
}

bool record_in_history(const std::string& db, const std::string& results_path, const RunReport& report) {
  try {
    History history(db, History::Mode::create);
    const auto rec = history.record(read_text_file(results_path), report);
    std::cout << "history: " << (rec.already ? "already recorded as run " : "recorded as run ") << rec.id << " in "
              << history.path() << "\n";
    return true;
  } catch (const std::exception& e) {
    std::cout << std::flush;
    std::cerr << "history not recorded: " << e.what() << " (the results are in " << results_path
              << "; record them later: pperf history record " << results_path << ")\n";
    return false;
  }
}

int record_and_trend(const std::string& db, const RunReport& report, const Outputs& outputs, const Finished& finished) {
  const int code = finished.code;
  if (db.empty() || !finished.written) return code;
  if (!record_in_history(db, finished.json_path, report)) return code == kExitOk ? kExitHistoryNotRecorded : code;
  write_trend_reports(report, outputs, db);
  return code;
}

const std::atomic<bool>& install_stop_handlers(bool announce) {
  g_announce_stop = announce;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  return g_stop_requested;
}

void add_memory_option(po::options_description& options) {
  options.add_options()("max-memory", po::value<double>(),
                        "GiB each item's processes may hold together (default: measure.max_memory_gib, else 80 % of "
                        "the memory available at the start); an item over it fails, one predicted over it is refused");
}

SessionRequest session_request(const Parsed& parsed) {
  SessionRequest request;
  request.config = parsed.string("config");
  request.process.native = parsed.has("native");
  if (parsed.vars.count("max-memory")) {
    const double gib = parsed.vars["max-memory"].as<double>();
    if (!(gib > 0)) throw InputError("--max-memory", "", "must be a number of GiB > 0");
    request.max_memory_gib = gib;
  }
  return request;
}

}  // namespace pperf::cli
