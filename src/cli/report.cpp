// `pperf report RESULTS.json [--history DB] --html OUT [--markdown OUT]`: the reports people
// look at, with trend charts from the history. Also what `pperf run --html/--markdown` writes.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "src/cli/cli.h"
#include "src/core/atomic_file.h"
#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "src/core/results_json.h"
#include "src/history/history.h"
#include "src/stats/change_points.h"

namespace pperf::cli {

std::vector<TrendSeries> history_trends(const std::string& db, const RunReport& run, const std::string& run_text,
                                        std::string& note) {
  const History history(db, History::Mode::read);
  const std::string fingerprint = host_fingerprint(run.host);
  const auto runs = history.list(run.config_name, std::nullopt, fingerprint, true);
  const std::string own = sha256_hex(run_text);
  const bool recorded = std::any_of(runs.begin(), runs.end(), [&](const HistoryRun& r) { return r.results_sha256 == own; });
  note = fmt::format("{} complete run(s) of '{}' on host {} in {}{}.", runs.size(), run.config_name, fingerprint, history.path(),
                     recorded ? " (this run among them)" : ", plus this run");
  std::vector<TrendSeries> out;
  for (auto& [key, points] : history.series(run.config_name, fingerprint)) {
    TrendSeries s;
    s.label = key.label();
    for (const auto& p : points) s.points.push_back({p.run_id, p.started_at, p.git_sha, p.median_ms, p.usd_per_step});
    out.push_back(std::move(s));
  }
  if (!recorded)
    for (const auto& r : run.results) {
      if (r.status != ResultStatus::ok || !r.step) continue;
      const std::string label = pair_key(r).label();
      auto it = std::find_if(out.begin(), out.end(), [&](const TrendSeries& s) { return s.label == label; });
      if (it == out.end()) it = out.insert(out.end(), TrendSeries{label, {}, {}, {}});
      it->points.push_back({0, run.started_at, run.git_sha, r.step->median_ms,
                            r.cost ? std::optional<double>(r.cost->usd_per_step) : std::nullopt});
      std::stable_sort(it->points.begin(), it->points.end(),
                       [](const TrendPoint& a, const TrendPoint& b) { return a.started_at < b.started_at; });
    }
  const auto marks = history.change_points(run.config_name, fingerprint);
  for (auto& s : out) {
    std::vector<double> medians, costs;
    std::vector<size_t> cost_index;
    for (size_t i = 0; i < s.points.size(); ++i) {
      medians.push_back(s.points[i].median_ms);
      if (s.points[i].usd_per_step && *s.points[i].usd_per_step > 0) costs.push_back(*s.points[i].usd_per_step), cost_index.push_back(i);
    }
    s.median_changes = change_points(medians);
    for (size_t c : change_points(costs)) s.cost_changes.push_back(cost_index[c]);
    // Changes marked by hand (`pperf history mark`) are drawn too.
    for (const auto& m : marks) {
      if (m.source != "marked" || (!m.pair.workload.empty() && m.pair.label() != s.label)) continue;
      for (size_t i = 0; i < s.points.size(); ++i)
        if (s.points[i].run_id == m.run_id) {
          for (auto* list : {&s.median_changes, &s.cost_changes})
            if (std::find(list->begin(), list->end(), i) == list->end()) list->push_back(i);
        }
    }
    std::sort(s.median_changes.begin(), s.median_changes.end());
    std::sort(s.cost_changes.begin(), s.cost_changes.end());
  }
  return out;
}

void write_run_files(const RunReport& run, const std::string& source, const std::string& run_text,
                     const std::string& history_db, const std::vector<OutputFile>& files) {
  RunReportPage page;
  page.run = &run;
  page.source = source;
  bool trends = false;
  for (const auto& f : files) trends = trends || f.writer->shows_trends;
  if (trends && !history_db.empty()) page.trends = history_trends(history_db, run, run_text, page.history_note);
  for (const auto& f : files) write_file_atomically(f.path, f.writer->write(page));
}

int command_report(const std::vector<std::string>& args) {
  // The formats that draw trends, each a flag: --html OUT.html, --markdown OUT.md.
  std::vector<const RunWriter*> formats;
  std::string synopsis, wanted;
  for (const RunWriter& w : run_writers())
    if (w.shows_trends) {
      formats.push_back(&w);
      const std::string flag = "--" + w.flag + " OUT." + w.extension;
      synopsis += (synopsis.empty() ? flag : " [" + flag + "]");
      wanted += (wanted.empty() ? "" : " and/or ") + flag;
    }
  po::options_description options("pperf report RESULTS.json [--history DB] " + synopsis);
  options.add_options()("help,h", "show this help")("results", po::value<std::string>()->required(), "RESULTS.json")(
      "history", po::value<std::string>()->implicit_value(""),
      "add trend charts of this config on this host from the history DB (default $PPERF_HISTORY, else results/history.sqlite)");
  for (const RunWriter* w : formats) options.add_options()(w->flag.c_str(), po::value<std::string>(), ("write " + w->description).c_str());
  po::positional_options_description positional;
  positional.add("results", 1);
  Parsed p = parse("report", options, join_optional_value(args, "--history"), &positional);
  if (p.help) return std::cout << options, kExitOk;
  std::vector<OutputFile> files;
  for (const RunWriter* w : formats)
    if (p.has(w->name)) files.push_back({w, p.string(w->name)});
  if (files.empty()) throw InputError("pperf report", "--" + formats.front()->name, "give " + wanted);
  const std::string path = p.string("results");
  const RunReport run = read_results_file(path);
  std::string db;
  if (p.has("history")) db = p.string("history").empty() ? default_history_path() : p.string("history");
  write_run_files(run, path, read_text_file(path), db, files);
  for (const auto& f : files) std::cout << "report: " << f.path << "\n";
  return kExitOk;
}

}  // namespace pperf::cli
