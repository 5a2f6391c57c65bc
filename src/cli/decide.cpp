// `pperf decide RESULTS... [--baseline NAME] [--pricing TABLE] [--accept FIELD,...] [--run ID]...
// [--history DB] [--out FILE] [--csv F ...]`: configurations measured apart (on their own hosts,
// at their own times) decided together (src/decide/decide.h), written through the run writers.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "src/cli/cli.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "src/core/utc_time.h"
#include "src/decide/decide.h"
#include "src/env/build_info.h"
#include "src/env/host_info.h"
#include "src/history/history.h"
#include "reports/decide_text.h"
#include "reports/formats.h"

namespace pperf::cli {

namespace {
/// A results file RESULTS names, and whether it was found in a folder (rather than named).
struct ResultPath {
  std::string path;
  bool in_folder = false;
};
/// The files RESULTS names: a file as given, a folder's *.json files (sorted; dot files left out).
std::vector<ResultPath> result_paths(const std::vector<std::string>& given) {
  std::vector<ResultPath> paths;
  for (const auto& g : given) {
    std::error_code ec;
    if (std::filesystem::is_directory(g, ec)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::directory_iterator(g, ec))
        if (e.is_regular_file() && e.path().extension() == ".json" && e.path().filename().string()[0] != '.')
          found.push_back(e.path().string());
      if (found.empty()) throw InputError(g, "", "a folder without results files (*.json)");
      std::sort(found.begin(), found.end());
      for (const auto& f : found) paths.push_back({f, true});
    } else {
      if (!std::filesystem::is_regular_file(g, ec)) throw InputError(g, "", "no such results file");
      paths.push_back({g, false});
    }
  }
  for (size_t i = 0; i < paths.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      std::error_code ec;
      if (std::filesystem::equivalent(paths[i].path, paths[j].path, ec))
        throw InputError(paths[i].path, "", "given twice (also as " + paths[j].path + "): give each results file once");
    }
  return paths;
}

/// --pricing's table, else the newest (retrieved, then published) of the inputs' tables.
PriceTable choose_table(const Parsed& p, const std::vector<DecideSource>& sources, std::string& choice) {
  if (p.has("pricing")) {
    choice = "--pricing";
    try {
      return load_price_table(p.string("pricing"), sources.front().run.pricing_region);
    } catch (const InputError&) {
      return load_price_table(p.string("pricing"));
    }
  }
  const DecideSource* newest = &sources.front();
  for (const auto& s : sources)
    if (std::tie(s.run.pricing_retrieved, s.run.pricing_published) > std::tie(newest->run.pricing_retrieved, newest->run.pricing_published))
      newest = &s;
  choice = "the newest of the inputs' tables, " + newest->name + "'s";
  try {
    return load_price_table(newest->run.pricing_table, newest->run.pricing_region);
  } catch (const std::exception& e) {
    throw InputError(newest->name, "/pricing/table",
                     fmt::format("its table '{}' cannot be loaded here ({}): give the table to re-price with --pricing",
                                 newest->run.pricing_table, e.what()));
  }
}
}  // namespace

int command_decide(const std::vector<std::string>& args, const std::vector<std::string>& argv) {
  po::options_description options(
      "pperf decide RESULTS... [--baseline NAME] [--pricing TABLE] [--accept FIELD,...]\n"
      "             [--run ID]... [--history DB] [--out FILE] [format flags]\n"
      "Decides configurations measured apart (each on its own hosts, at its own time)\n"
      "together: one priced decision, unpaired (schedule: separate). RESULTS are\n"
      "results files of `pperf run` or folders of them; results of one configuration\n"
      "from different hosts (placement.host_id) are pooled as replicates");
  options.add_options()("help,h", "show this help")("results", po::value<std::vector<std::string>>(),
                                                    "results files or folders of them")(
      "baseline", po::value<std::string>(), "the configuration to decide against (default: the one the results mark)")(
      "pricing", po::value<std::string>(), "re-price every configuration from this table (default: the newest of the inputs')")(
      "accept", po::value<std::string>(),
      "comma-separated fields allowed to differ between the results (recorded and printed): preset, batch_size, "
      "samples_per_step, params, seed, dataset, model, precision, version, emulation, discount")(
      "run", po::value<std::vector<std::string>>(), "a run of the history database (--history) by id; repeatable")(
      "history", po::value<std::string>(),
      "the history database (a file or a postgresql:// URI): --run's runs and the between-host spread of an instance "
      "type measured on one host come from it, and the decision is recorded in it");
  add_output_options(options, "results/decide-<config name>.json");
  po::positional_options_description positional;
  positional.add("results", -1);
  Parsed p = parse("decide", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;

  DecideRequest request;
  std::vector<std::string> skipped;  // decisions found in a folder read (decide's own output, say)
  if (p.has("results"))
    for (const auto& [path, in_folder] : result_paths(p.vars["results"].as<std::vector<std::string>>())) {
      RunReport run = read_results_file(path);
      if (in_folder && run.command == "decide") {
        skipped.push_back(path);
        continue;
      }
      request.sources.push_back({path, std::move(run)});
    }
  const std::string db = p.has("history") ? p.string("history") : "";
  std::vector<RunReport> history_runs;
  if (!db.empty() && History::exists(db)) {
    const History history(db, History::Mode::read);
    if (p.has("run"))
      for (const auto& id_text : p.vars["run"].as<std::vector<std::string>>()) {
        const auto id = positive_integer(id_text);
        if (!id) throw InputError("pperf decide", "--run", "expected a history run id (a positive whole number), got '" + id_text + "'");
        const auto text = history.results_text(*id);
        if (!text) throw InputError("pperf decide", "--run", fmt::format("{} has no run {}", history.path(), *id));
        const std::string name = fmt::format("history run {}", *id);
        request.sources.push_back({name, results_from_json(nlohmann::json::parse(*text), name)});
      }
    for (const auto& run : history.list(std::nullopt, 500, std::nullopt, true))
      if (const auto text = history.results_text(run.id)) {
        try {
          history_runs.push_back(results_from_json(nlohmann::json::parse(*text), "history run " + std::to_string(run.id)));
        } catch (const std::exception&) {
          // a run this pperf cannot read says nothing of the spread
        }
      }
  } else if (p.has("run")) {
    throw InputError("pperf decide", "--run", db.empty() ? "needs --history DB" : db + " holds no pperf history");
  }
  if (request.sources.empty()) throw InputError("pperf decide", "RESULTS", "no results given (files, folders or --run ids)");
  if (p.has("baseline")) request.baseline = p.string("baseline");
  if (p.has("accept"))
    for (const auto& field : split_commas(p.string("accept"))) {
      const auto& fields = match_fields();
      if (std::find(fields.begin(), fields.end(), field) == fields.end())
        throw InputError("pperf decide", "--accept", "'" + field + "' is not a field decide matches" + did_you_mean(field, fields));
      request.accepted.insert(field);
    }
  request.table = choose_table(p, request.sources, request.table_choice);
  // Equivalence margin: what the runs decided with (the first that records one), else the default.
  for (const auto& s : request.sources)
    for (const auto& r : s.run.results)
      if (r.decision) request.decision.equivalence_pct = r.decision->equivalence_pct;
  for (const auto& s : request.sources)
    for (const auto& r : s.run.results)
      if (const auto spread = spread_from_runs(history_runs, r, request.sources)) request.history_spread[spread_key(r)] = *spread;

  DecideOutcome outcome = decide_separate(request);
  RunReport& report = outcome.report;
  decide_reasons(report);
  report.tool_version = build_version();
  report.git_sha = build_git_sha();
  report.host = capture_host(argv);  // where it was decided; each input's own host is in decide.inputs
  const std::string json_path = p.has("out") ? p.string("out") : "results/decide-" + report.config_name + ".json";
  check_writable(json_path, "--out");
  const auto files = file_outputs(p, run_writers());
  const std::string text = results_file_text(report);
  write_file_atomically(json_path, text);
  write_run_files(report, json_path, "", "", files);
  if (!p.has("quiet")) {
    for (const auto& path : skipped) std::cout << "decide: skipped " << path << ": a decision by pperf decide, not a run\n";
    std::cout << to_console(report, ConsoleOptions{terminal_columns(), p.has("wide")});
    std::string written = json_path;
    for (const auto& f : files) written += ", " + f.path;
    std::cout << "results: " << written << "\n";
  }
  if (!db.empty() && !record_in_history(db, json_path, report)) return kExitHistoryNotRecorded;
  return kExitOk;
}

}  // namespace pperf::cli
