// `pperf history record|list|show|changes|mark|copy`: the history of finished runs (a SQLite file or
// a PostgreSQL database).
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "src/cli/cli.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "src/history/history.h"
#include "src/stats/change_points.h"

namespace pperf::cli {

namespace {

const char* kHistoryUsage =
    "usage: pperf history <subcommand> [--db DB] ...\n"
    "  record RESULTS.json...            record results files written earlier\n"
    "  list [--config NAME] [--last N] [--json]\n"
    "                                    the recorded runs, oldest first\n"
    "  show RUN_ID [--out FILE]          the results JSON exactly as recorded\n"
    "  changes [--config NAME] [--json]  change points of each series (median step\n"
    "                                    time, USD per step) and price-table\n"
    "                                    changes (their own event)\n"
    "  mark RUN_ID [--pair LABEL] [--note TEXT]\n"
    "                                    mark a known change by hand: it begins at\n"
    "                                    RUN_ID\n"
    "  copy FROM TO                      copy every run and marked change point\n"
    "                                    from one database to another (idempotent:\n"
    "                                    what TO holds already is not doubled)\n"
    "--db DB: the database, a file (SQLite) or a postgresql:// URI (default\n"
    "$PPERF_HISTORY, else results/history.sqlite).\n";

po::options_description common_options(const std::string& sub) {
  po::options_description o("pperf history " + sub + " options");
  o.add_options()("help,h", "show this help")("db", po::value<std::string>(), "history database: a file or a postgresql:// URI (default $PPERF_HISTORY, else results/history.sqlite)");
  return o;
}

std::string db_path(const Parsed& p) {
  const std::string db = p.has("db") ? p.string("db") : default_history_path();
  check_history_db(db, p.has("db") ? "--db" : "PPERF_HISTORY");
  return db;
}

int64_t parse_run_id(const std::string& command, const std::string& text) {
  if (const std::optional<int64_t> id = positive_integer(text)) return *id;
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
    std::cout << fmt::format("{}: {}recorded as run {} in {}\n", files[i], rec.already ? "already " : "", rec.id,
                             history.path());
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

int history_changes(const std::vector<std::string>& args) {
  auto options = common_options("changes");
  options.add_options()("config", po::value<std::string>(), "only this config name")(
      "json", "print a JSON array of change points");
  Parsed p = parse("history changes", options, args);
  if (p.help) return std::cout << options, kExitOk;
  History history(db_path(p), History::Mode::read);
  std::vector<std::string> configs = history.config_names();
  if (p.has("config")) {
    const std::string want = p.string("config");
    if (std::find(configs.begin(), configs.end(), want) == configs.end())
      throw InputError("pperf history changes", "--config", "no runs of config '" + want + "' in " + history.path() + did_you_mean(want, configs));
    configs = {want};
  }
  nlohmann::json all = nlohmann::json::array();
  std::string text;
  size_t series_count = 0, detected_count = 0;
  for (const auto& config : configs)
    for (const auto& fingerprint : history.fingerprints(config)) {
      const auto series = history.series(config, fingerprint);
      if (series.empty()) continue;
      text += fmt::format("{} on host {} ({} complete run(s)):\n", config, fingerprint, series.front().second.size());
      std::vector<StoredChangePoint> detected;
      // A new price table moves USD per step without any change in performance: it is its own
      // event, and USD-per-step change points are looked for only between runs priced alike.
      const auto& first_points = series.front().second;
      for (size_t i = 1; i < first_points.size(); ++i) {
        const PriceTableIdentity &before = first_points[i - 1].price_table, &after = first_points[i].price_table;
        if (before == after) continue;
        const SeriesPoint& at = first_points[i];
        text += fmt::format("  price table changed at run {} ({}): {} -> {} (a price event, not a performance change)\n",
                            at.run_id, at.started_at, before.label(), after.label());
        all.push_back({{"config_name", config}, {"host_fingerprint", fingerprint}, {"metric", "price_table"},
                       {"run_id", at.run_id}, {"git_sha", at.git_sha}, {"started_at", at.started_at},
                       {"before", before.label()}, {"after", after.label()}, {"change_pct", nullptr},
                       {"source", "price_table"}, {"note", "price table changed"}});
      }
      for (const auto& [key, points] : series) {
        for (const std::string metric : {"median_ms", "usd_per_step"}) {
          // Pieces of consecutive runs priced with one table (the whole series for median_ms).
          std::vector<std::pair<size_t, size_t>> pieces;
          for (size_t i = 0; i < points.size(); ++i)
            if (pieces.empty() || (metric == "usd_per_step" && points[i].price_table != points[i - 1].price_table))
              pieces.push_back({i, i + 1});
            else
              pieces.back().second = i + 1;
          ++series_count;
          for (const auto& [from, to] : pieces) {
            std::vector<double> values;
            std::vector<size_t> index;
            for (size_t i = from; i < to; ++i) {
              const std::optional<double> v = metric == "median_ms" ? std::optional<double>(points[i].median_ms) : points[i].usd_per_step;
              if (v && *v > 0) values.push_back(*v), index.push_back(i);
            }
            const auto segments = fit_segments(values);
            for (size_t k = 1; k < segments.size(); ++k) {
              const SeriesPoint& at = points[index[segments[k].begin]];
              StoredChangePoint c;
              c.run_id = at.run_id;
              c.metric = metric;
              c.pair = key;
              c.before = segments[k - 1].level;
              c.after = segments[k].level;
              c.source = "detected";
              c.note = fmt::format("git {}, {}", at.git_sha, at.started_at);
              detected.push_back(c);
              const double pct = (*c.after / *c.before - 1) * 100;
              text += fmt::format("  {:<40} {:<13} {:.5g} -> {:.5g} ({:+.1f} %) from run {} (git {}, {})\n", key.label(), metric,
                                  *c.before, *c.after, pct, at.run_id, at.git_sha.substr(0, 12), at.started_at);
              all.push_back({{"config_name", config}, {"host_fingerprint", fingerprint}, {"workload", key.workload},
                             {"preset", key.preset}, {"batch_size", key.batch_size}, {"configuration", key.configuration},
                             {"metric", metric}, {"run_id", at.run_id}, {"git_sha", at.git_sha}, {"started_at", at.started_at},
                             {"before", *c.before}, {"after", *c.after}, {"change_pct", pct}, {"source", "detected"}, {"note", ""}});
            }
          }
        }
      }
      detected_count += detected.size();
      history.store_detected(config, fingerprint, detected);
      for (const auto& m : history.change_points(config, fingerprint)) {
        if (m.source != "marked") continue;
        const auto run = history.run(m.run_id);
        text += fmt::format("  {:<40} {:<13} marked by hand at run {} (git {}, {}){}\n",
                            m.pair.workload.empty() ? std::string("every pair") : m.pair.label(), m.metric, m.run_id,
                            run ? run->git_sha.substr(0, 12) : "?", run ? run->started_at : "?", m.note.empty() ? "" : ": " + m.note);
        all.push_back({{"config_name", config}, {"host_fingerprint", fingerprint}, {"workload", m.pair.workload},
                       {"preset", m.pair.preset}, {"batch_size", m.pair.batch_size}, {"configuration", m.pair.configuration},
                       {"metric", m.metric}, {"run_id", m.run_id}, {"git_sha", run ? run->git_sha : ""},
                       {"started_at", run ? run->started_at : ""}, {"before", nullptr}, {"after", nullptr},
                       {"change_pct", nullptr}, {"source", "marked"}, {"note", m.note}});
      }
    }
  if (p.has("json")) {
    std::cout << all.dump(2) << "\n";
  } else {
    std::cout << text;
    std::cout << fmt::format("{} change point(s) detected in {} series; stored in {} (table change_points)\n", detected_count,
                             series_count, history.path());
  }
  return kExitOk;
}

int history_mark(const std::vector<std::string>& args) {
  auto options = common_options("mark");
  options.add_options()("run", po::value<std::string>()->required(), "RUN_ID: the first run of the new level")(
      "pair", po::value<std::string>(), "only this pair, as `history changes` names it (\"workload/preset/batch configuration\"); default every pair")(
      "note", po::value<std::string>()->default_value(""), "why (e.g. \"new BLAS\")");
  po::positional_options_description positional;
  positional.add("run", 1);
  Parsed p = parse("history mark", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  const int64_t id = parse_run_id("history mark", p.string("run"));
  History history(db_path(p), History::Mode::read);
  const auto run = history.run(id);
  if (!run) throw InputError("pperf history mark", "RUN_ID", fmt::format("no run {} in {}", id, history.path()));
  StoredChangePoint m;
  m.run_id = id;
  m.config_name = run->config_name;
  m.host_fingerprint = run->host_fingerprint;
  m.metric = "all";
  m.note = p.string("note");
  if (p.has("pair")) {
    const std::string want = p.string("pair");
    const RunReport report = results_from_json(nlohmann::json::parse(*history.results_text(id)), history.path());
    std::vector<std::string> labels;
    for (const auto& r : report.results) {
      labels.push_back(pair_key(r).label());
      if (labels.back() == want) m.pair = pair_key(r);
    }
    if (m.pair.workload.empty())
      throw InputError("pperf history mark", "--pair", "run " + std::to_string(id) + " has no pair '" + want + "'" + did_you_mean(want, labels));
  }
  history.mark(m);
  std::cout << fmt::format("marked a change at run {} ({}, git {}) for {} of '{}' in {}\n", id, run->started_at,
                           run->git_sha.substr(0, 12), p.has("pair") ? p.string("pair") : "every pair", run->config_name,
                           history.path());
  return kExitOk;
}

int history_copy(const std::vector<std::string>& args) {
  po::options_description options("pperf history copy options");
  options.add_options()("help,h", "show this help")("from", po::value<std::string>()->required(), "FROM: the database to copy")(
      "to", po::value<std::string>()->required(), "TO: the database to copy into (created when missing)");
  po::positional_options_description positional;
  positional.add("from", 1).add("to", 1);
  Parsed p = parse("history copy", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  const History from(p.string("from"), History::Mode::read);
  History to(p.string("to"), History::Mode::create);
  if (from.path() == to.path())
    throw InputError("pperf history copy", "TO", "is the same database as FROM (" + from.path() + ")");
  const auto counts = to.copy_from(from);
  std::cout << fmt::format("copied {} run(s) ({} already there) and {} marked change point(s) ({} already there) from {} to {}\n",
                           counts.runs_copied, counts.runs_present, counts.marks_copied, counts.marks_present, from.path(),
                           to.path());
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
  if (sub == "changes") return history_changes(rest);
  if (sub == "mark") return history_mark(rest);
  if (sub == "copy") return history_copy(rest);
  if (sub == "--help" || sub == "-h" || sub == "help") return std::cout << kHistoryUsage, kExitOk;
  throw InputError("pperf history", "", "unknown subcommand '" + sub + "'" +
                                            did_you_mean(sub, {"record", "list", "show", "changes", "mark", "copy"}));
}

}  // namespace pperf::cli
