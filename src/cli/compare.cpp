// `pperf compare BASELINE.json CANDIDATE.json`: per-pair verdicts with a rank test, FDR
// control across pairs and the cost change split into time and price; exit 0 / 1 / 2.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "src/cli/cli.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/crypto.h"
#include "src/core/json_view.h"
#include "src/core/results_json.h"
#include "src/history/history.h"
#include "src/stats/change_points.h"
#include "src/compare/compare.h"
#include "reports/formats.h"
#include "reports/writer.h"

namespace pperf::cli {

namespace {

CompareSide file_side(const std::string& path) {
  CompareSide side;
  side.report = read_results_file(path);
  side.file = path;
  side.runs.push_back({0, side.report.started_at, side.report.git_sha, side.report.config_sha256});
  return side;
}

struct Cutoff {
  std::string started_at;
  int64_t run_id = 0;
};

/// Per pair label, where its last change begins: detected in its median step-time series over
/// the history's complete runs before the candidate plus the candidate itself, or marked by hand.
std::map<std::string, Cutoff> change_cutoffs(const History& history, const RunReport& candidate, const std::string& fingerprint,
                                             const std::string& own_sha) {
  std::map<std::string, Cutoff> out;
  std::set<int64_t> excluded;
  for (const auto& run : history.list(candidate.config_name, std::nullopt, fingerprint, true))
    if (run.results_sha256 == own_sha || !(run.started_at < candidate.started_at)) excluded.insert(run.id);
  std::map<std::string, double> tonight;
  for (const auto& r : candidate.results)
    if (r.status == ResultStatus::ok && r.step) tonight[pair_key(r).label()] = r.step->median_ms;
  for (const auto& [key, points] : history.series(candidate.config_name, fingerprint)) {
    std::vector<SeriesPoint> kept;
    for (const auto& p : points)
      if (!excluded.count(p.run_id)) kept.push_back(p);
    std::vector<double> medians;
    for (const auto& p : kept) medians.push_back(p.median_ms);
    const auto it = tonight.find(key.label());
    if (it != tonight.end()) medians.push_back(it->second);
    const auto changes = change_points(medians);
    if (!changes.empty() && changes.back() < kept.size())
      out[key.label()] = {kept[changes.back()].started_at, kept[changes.back()].run_id};
  }
  for (const auto& mark : history.change_points(candidate.config_name, fingerprint)) {
    if (mark.source != "marked" || excluded.count(mark.run_id)) continue;
    const auto run = history.run(mark.run_id);
    if (!run) continue;
    for (const auto& r : candidate.results) {
      if (!mark.pair.workload.empty() && !(mark.pair == pair_key(r))) continue;
      Cutoff& c = out[pair_key(r).label()];
      if (run->started_at > c.started_at) c = {run->started_at, run->id};
    }
  }
  return out;
}

/// The baseline from history: the last N complete runs of the candidate's config on its host
/// (started before it, the candidate itself excluded), pooled. nullopt when fewer than
/// `min_runs` qualify; `why` then says what was found.
std::optional<CompareSide> history_side(const History& history, const CompareSide& candidate, const std::string& candidate_text,
                                        int64_t n, int64_t min_runs, std::string& why) {
  const std::string fingerprint = host_fingerprint(candidate.report.host);
  const std::string own_sha = sha256_hex(candidate_text);
  std::vector<HistoryRun> usable;
  for (const auto& run : history.list(candidate.report.config_name, std::nullopt, fingerprint, true))
    if (run.results_sha256 != own_sha && run.started_at < candidate.report.started_at) usable.push_back(run);
  if (static_cast<int64_t>(usable.size()) < min_runs) {
    why = fmt::format("not enough history: {} complete run(s) of config '{}' on host {} in {} before the candidate "
                      "(need {})",
                      usable.size(), candidate.report.config_name, fingerprint, history.path(), min_runs);
    return std::nullopt;
  }
  const size_t total = usable.size();
  if (static_cast<int64_t>(usable.size()) > n) usable.erase(usable.begin(), usable.end() - n);
  std::vector<CompareSide> runs;
  std::string ids;
  for (const auto& run : usable) {
    CompareSide side;
    side.file = fmt::format("{}#run{}", history.path(), run.id);
    side.report = results_from_json(nlohmann::json::parse(*history.results_text(run.id)), side.file);
    side.runs.push_back({run.id, run.started_at, run.git_sha, run.config_sha256});
    runs.push_back(std::move(side));
    ids += (ids.empty() ? "" : ", ") + std::to_string(run.id);
  }
  // Per pair, only runs from its last change point on: one real change does not alarm every night.
  const auto cutoffs = change_cutoffs(history, candidate.report, fingerprint, own_sha);
  size_t cut_pairs = 0;
  CompareSide pooled = pool_runs(runs, [&](const Result& r, size_t i) {
    const auto it = cutoffs.find(pair_key(r).label());
    return it == cutoffs.end() || usable[i].started_at >= it->second.started_at;
  });
  for (const auto& r : candidate.report.results) cut_pairs += cutoffs.count(pair_key(r).label());
  pooled.file = history.path();
  pooled.description = fmt::format("last {} of {} complete run(s) of '{}' on host {}, each run one cluster: run(s) {}{}",
                                    usable.size(), total, candidate.report.config_name, fingerprint, ids,
                                    cut_pairs ? fmt::format("; {} pair(s) only from their last change point on", cut_pairs) : "");
  return pooled;
}

void check_range(const Parsed& p, const std::string& flag, double lo, double hi, bool open_lo, bool open_hi) {
  if (!p.has(flag)) return;
  const double v = p.vars[flag].as<double>();
  const bool ok = (open_lo ? v > lo : v >= lo) && (open_hi ? v < hi : v <= hi);
  if (!ok)
    throw InputError("pperf compare", "--" + flag,
                     fmt::format("must be in {}{:g}, {:g}{}, got {:g}", open_lo ? "(" : "[", lo, hi, open_hi ? ")" : "]", v));
}

}  // namespace

int command_compare(const std::vector<std::string>& args) {
  po::options_description options(
      "pperf compare BASELINE.json [MORE-BASELINES.json...] CANDIDATE.json [options]\n"
      "pperf compare --against-history N CANDIDATE.json [--db FILE] [options]");
  options.add_options()("help,h", "show this help")(
      "files", po::value<std::vector<std::string>>()->multitoken(), "BASELINE.json CANDIDATE.json")(
      "alpha", po::value<double>()->default_value(0.05, "0.05"), "false discovery rate across pairs (Benjamini–Hochberg)")(
      "max-slowdown-pct", po::value<double>()->default_value(5), "step-time increase (%) over which a significant change regresses")(
      "max-cost-increase-pct", po::value<double>()->default_value(5),
      "USD-per-step increase (%) due to step time over which a significant change regresses")(
      "strict", "any apples-and-oranges difference (host, libtorch, BLAS, config, price table) is exit 2")(
      "against-history", po::value<int64_t>(), "baseline: the last N complete runs of the candidate's config and host "
                                                 "in the history, each run one cluster; pairs with fewer than 3 are undecided (give only CANDIDATE.json)")(
      "db", po::value<std::string>(), "history database (default $PPERF_HISTORY, else results/history.sqlite)")(
      "min-history", po::value<int64_t>()->default_value(1), "with --against-history: fewer runs than this is not enough history")(
      "require-history", "with --against-history: not enough history is exit 2 (default: a note, exit 0)");
  add_file_flags(options, compare_writers(), "write ");
  po::positional_options_description positional;
  positional.add("files", -1);
  Parsed p = parse("compare", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  check_range(p, "alpha", 0, 1, true, true);
  check_range(p, "max-slowdown-pct", 0, 1e9, false, false);
  check_range(p, "max-cost-increase-pct", 0, 1e9, false, false);
  CompareOptions copts;
  copts.alpha = p.vars["alpha"].as<double>();
  copts.max_slowdown_pct = p.vars["max-slowdown-pct"].as<double>();
  copts.max_cost_increase_pct = p.vars["max-cost-increase-pct"].as<double>();

  const std::vector<std::string> files = p.has("files") ? p.vars["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
  CompareSide baseline, candidate;
  if (p.has("against-history")) {
    const int64_t n = p.vars["against-history"].as<int64_t>(), min_runs = p.vars["min-history"].as<int64_t>();
    if (n < 1) throw InputError("pperf compare", "--against-history", fmt::format("must be >= 1, got {}", n));
    if (min_runs < 1 || min_runs > n)
      throw InputError("pperf compare", "--min-history", fmt::format("must be in [1, {}] (--against-history), got {}", n, min_runs));
    if (files.size() != 1)
      throw InputError("pperf compare", "--against-history",
                       fmt::format("expected only CANDIDATE.json (the baseline comes from the history), got {} file(s)", files.size()));
    candidate = file_side(files[0]);
    const std::string db = p.has("db") ? p.string("db") : default_history_path();
    check_history_db(db, p.has("db") ? "--db" : "PPERF_HISTORY");
    const std::string db_name = is_postgres_uri(db) ? redact_postgres_uri(db) : db;  // never a password
    std::string why;
    std::optional<CompareSide> pooled;
    if (History::exists(db)) {
      const History history(db, History::Mode::read);
      pooled = history_side(history, candidate, read_text_file(files[0]), n, min_runs, why);
    } else {  // the first night: no database yet is no history
      why = fmt::format("not enough history: no history database at {} (need {} run(s))", db_name, min_runs);
    }
    if (!pooled) {
      if (p.has("require-history")) throw InputError("pperf compare", "--against-history", why + " (--require-history)");
      CompareReport empty;
      empty.candidate = std::move(candidate);
      empty.baseline.file = db_name;
      empty.baseline.description = "no baseline";
      empty.options = copts;
      empty.notes.push_back(why + ": the candidate is recorded (or can be) and not compared tonight");
      write_file_outputs(empty, file_outputs(p, compare_writers()));
      std::cout << "note: " << empty.notes.back() << "\n";
      return kExitOk;
    }
    baseline = std::move(*pooled);
  } else {
    if (files.size() < 2)
      throw InputError("pperf compare", "", fmt::format("expected BASELINE.json CANDIDATE.json, got {} file(s)", files.size()));
    if (files.size() == 2) {
      baseline = file_side(files[0]);
    } else {  // several baselines (oldest first): pooled as history runs are
      std::vector<CompareSide> runs;
      for (size_t i = 0; i + 1 < files.size(); ++i) runs.push_back(file_side(files[i]));
      baseline = pool_runs(runs);
      baseline.file = files[files.size() - 2];
      baseline.description = fmt::format("{} baseline files pooled", files.size() - 1);
    }
    candidate = file_side(files.back());
  }

  const CompareReport report = compare_runs(std::move(baseline), std::move(candidate), copts);
  if (p.has("strict") && !report.warnings.empty()) {
    std::string all;
    for (const auto& w : report.warnings) all += (all.empty() ? "" : "; ") + w.message();
    throw InputError("pperf compare", "--strict", fmt::format("not like for like ({} difference(s)): {}", report.warnings.size(), all));
  }
  write_file_outputs(report, file_outputs(p, compare_writers()));
  std::cout << compare_console(report);
  return report.exit_code();
}

}  // namespace pperf::cli
