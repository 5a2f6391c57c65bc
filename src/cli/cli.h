#pragma once
// What the command files share: flag parsing that turns every mistake into an InputError
// naming the flag, the exit-code policy (one place), and the run header every results file
// starts with.
#include <boost/program_options.hpp>

#include <atomic>
#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include "src/config/config.h"
#include "src/config/plan.h"
#include "src/core/atomic_file.h"
#include "src/core/exit_codes.h"
#include "src/core/text_values.h"
#include "src/core/result.h"
#include "src/session/run_session.h"
#include "reports/writer.h"

namespace pperf::cli {

namespace po = boost::program_options;

// The exit codes (kExitOk, ...) are src/core/exit_codes.h's.

/// The exit code a finished run or cost earns: interrupted 3, else 1 if any result failed or is
/// partial, or (`require_converged`) stopped before its CI reached the target, else 0.
int exit_code_for(const RunReport& report, bool require_converged = false);
/// The first measured result that stopped on max_steps/max_seconds before converging; nullptr if none.
const Result* first_unconverged(const RunReport& report);

struct Parsed {
  po::variables_map vars;
  bool help = false;
  bool has(const std::string& flag) const { return vars.count(flag) > 0; }
  std::string string(const std::string& flag) const { return vars[flag].as<std::string>(); }
};

/// Parses a subcommand's flags; any mistake is an InputError naming the flag.
Parsed parse(const std::string& command, const po::options_description& options, const std::vector<std::string>& args,
             const po::positional_options_description* positional = nullptr);

/// The options every config-taking command has: --help, --config FILE.
po::options_description config_options(const std::string& command);

/// The internal child commands' options (config_options + --config-sha256, --workload-index,
/// --configuration-index), and the plan item they name (InputError when the config changed
/// since the parent read it, or an index is out of range).
po::options_description item_options(const std::string& command);
PlanItem item_from(const Parsed& p, const Config& config);
/// Provenance: tool, config, host, pricing. Status "interrupted" until the caller says otherwise.
RunReport report_header(const Config& config, const std::string& command, const std::vector<std::string>& argv);

/// On stderr, when the config's price table is older than pricing.max_age_days (from its
/// publication date) or records no publication date (not with --quiet: errors only). Run and
/// cost call it once.
void warn_if_prices_stale(const Config& config, bool quiet);
/// The warning warn_if_prices_stale prints ("" when the prices are fresh): the whole sentence,
/// or on a terminal `width` columns wide (0: not a terminal) the longest of its shorter forms
/// that fits on one line.
std::string stale_prices_line(const PriceTable& table, int64_t max_age_days, const std::string& today, size_t width);

/// "traces: N files in DIR (...)" when results carry `--trace`'s files; "" otherwise.
std::string traces_line(const RunReport& report);

/// One file a command writes in one of reports/writer.h's formats of its page.
template <class Page>
struct FileOutput {
  const Writer<Page>* writer = nullptr;
  std::string path;
};
using OutputFile = FileOutput<RunReportPage>;

/// The directory of `path`, created if missing, accepts a new file: else InputError naming `flag`
/// with the real cause.
void check_writable(const std::string& path, const std::string& flag);

/// A flag per format of `writers` that has one ("--markdown FILE": `verb` + its description).
template <class Page>
void add_file_flags(po::options_description& options, const std::vector<Writer<Page>>& writers,
                    const std::string& verb = "also write ") {
  for (const auto& w : writers)
    if (!w.flag.empty()) options.add_options()(w.flag.c_str(), po::value<std::string>(), (verb + w.description).c_str());
}
/// The files the flags of `writers` ask for, each checked writable up front (check_writable).
template <class Page>
std::vector<FileOutput<Page>> file_outputs(const Parsed& parsed, const std::vector<Writer<Page>>& writers) {
  std::vector<FileOutput<Page>> files;
  for (const auto& w : writers)
    if (!w.flag.empty() && parsed.has(w.flag)) {
      files.push_back({&w, parsed.string(w.flag)});
      check_writable(files.back().path, "--" + w.flag);
    }
  return files;
}
/// Writes `page` to each of `files` atomically.
template <class Page>
void write_file_outputs(const Page& page, const std::vector<FileOutput<Page>>& files) {
  for (const auto& f : files) write_file_atomically(f.path, f.writer->write(page));
}

/// Where a run's or cost's results go (--out, default results/<config name>.json; a file per
/// format flag given: --csv, --html, --markdown, --gbench) and how the console shows them (--wide,
/// --quiet). While a run measures, its results so far go to `in_progress_path` beside --out;
/// --out itself is replaced only by the finished results.
struct Outputs {
  std::string json_path;
  std::string in_progress_path;  // <out>.in-progress
  std::vector<OutputFile> files;
  bool wide = false, quiet = false;
  std::string replaced_run;  // started_at of the results file this run replaces, if any
  int lock_fd = -1;          // held while this process writes json_path
};
/// Adds --out (its help naming `default_out`), a flag per file format (reports/writer.h), --wide
/// and --quiet to `options`.
void add_output_options(po::options_description& options, const std::string& default_out = "results/<config name>.json");
/// Checks up front that every output can be written (InputError naming the flag and the real
/// cause), and takes the output's lock: a second pperf writing the same --out is refused.
Outputs outputs_from(const Parsed& parsed, const Config& config);
/// The run's first in-progress file (its header, marked interrupted); InputError naming --out
/// when it cannot be written (a full disk is found here, before anything is measured).
void start_in_progress(const RunReport& report, const Outputs& outputs);
/// Replaces the in-progress file with `report` atomically (the results so far).
void write_in_progress(const RunReport& report, const Outputs& outputs);

/// How a run or cost ended: its exit code and where its results JSON went.
struct Finished {
  int code = 0;
  bool written = false;   // json_path holds the finished results
  std::string json_path;  // --out, or where they went when --out could not be written
};
/// The end of run and cost: price and rate (the session's pricing), stamp, write every output
/// atomically, print the table and where each file went. When --out cannot be written (a full
/// disk), the table is still printed and the results go to a file in the temporary directory
/// that the error line names (exit 3; else the in-progress file is kept and named). Exit code:
/// exit_code_for(report, require_converged), saying which result did not converge.
/// `after_pricing`, when given, sees the report once priced, before it is written.
Finished finish(RunReport& report, const RunSession& session, const Outputs& outputs, bool require_converged = false,
                const std::function<void(RunReport&)>& after_pricing = {});
/// With a history database: rewrites the files whose format draws trends (HTML, Markdown) with
/// the run's trends from it. Call after record_in_history. Does nothing without a database.
void write_trend_reports(const RunReport& report, const Outputs& outputs, const std::string& history_db);

/// `--history [DB]`: record the finished run in the history (a file or a postgresql:// URI) (default FILE:
/// $PPERF_HISTORY, else results/history.sqlite). PPERF_HISTORY set also turns recording on.
void add_history_option(po::options_description& options);

/// `--max-memory GIB`: what each item's processes may hold together.
void add_memory_option(po::options_description& options);
/// The session a config-taking command asks for: --config, and --max-memory when the command
/// has it (InputError for a value that is not a number of GiB > 0).
SessionRequest session_request(const Parsed& parsed);
/// `--history FILE` written with a space: boost takes only `--history=FILE` for an option whose
/// value is optional, so the next argument is joined to it when it is not itself a flag.
std::vector<std::string> join_optional_value(const std::vector<std::string>& args, const std::string& flag);
/// The database to record in, or "" when recording is off.
std::string history_path_from(const Parsed& parsed);
/// Records the results file just written (its exact text) in the history; prints where. When the
/// database cannot take it (a server stopped mid-run), says so on one stderr line ("history not
/// recorded: ...") and returns false: the results file stands, to be recorded later.
bool record_in_history(const std::string& db, const std::string& results_path, const RunReport& report);
/// After `finish`: records the run when `db` is set, then writes the trend reports; the exit
/// code, kExitHistoryNotRecorded where the run was otherwise a success and recording failed.
int record_and_trend(const std::string& db, const RunReport& report, const Outputs& outputs, const Finished& finished);

/// SIGINT/SIGTERM set the flag (first signal: finish the current step; second: default action).
/// With `announce`, the first signal also says so on stderr.
const std::atomic<bool>& install_stop_handlers(bool announce);

/// Columns of a terminal that does not say how wide it is (a pseudo-terminal reporting 0).
constexpr size_t kUnknownTerminalColumns = 100;
/// Columns of the terminal `fd` (stdout by default) goes to ($COLUMNS, else the terminal's width,
/// else kUnknownTerminalColumns); 0 when it is not a terminal and COLUMNS is unset (a file gets
/// every column, whole lines).
size_t terminal_columns(int fd = 1);

// The commands; each returns its exit code and throws InputError for bad input.
int command_run(const std::vector<std::string>& args, const std::vector<std::string>& argv);
int command_cost(const std::vector<std::string>& args, const std::vector<std::string>& argv);
int command_validate(const std::vector<std::string>& args);
int command_list(const std::vector<std::string>& args);
int command_data_worker(const std::vector<std::string>& args);
int command_launch(const std::vector<std::string>& args);
int command_sagemaker_entry(const std::vector<std::string>& args);
int command_node_entry(const std::vector<std::string>& args);
int command_compare(const std::vector<std::string>& args);
int command_history(const std::vector<std::string>& args);
int command_export(const std::vector<std::string>& args);
int command_report(const std::vector<std::string>& args);
int command_advise(const std::vector<std::string>& args);
int command_decide(const std::vector<std::string>& args, const std::vector<std::string>& argv);
int command_prices(const std::vector<std::string>& args);
int command_project(const std::vector<std::string>& args);
int command_spot_drill_worker(const std::vector<std::string>& args);

/// Writes `files` of `run` (read from `source`, whose text is `run_text`); with `history_db`, the
/// formats that draw trends get the trends of the run's config on its host, change points marked.
void write_run_files(const RunReport& run, const std::string& source, const std::string& run_text,
                     const std::string& history_db, const std::vector<OutputFile>& files);
int command_measure_item(const std::vector<std::string>& args, const std::vector<std::string>& argv);
int command_probe_memory(const std::vector<std::string>& args);

}  // namespace pperf::cli
